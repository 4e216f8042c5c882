// An API error shown under the field it names (the API's `field`), or at the form's top otherwise.
import { ApiError } from './api';

export function FieldError({ error, field, id }: { error?: unknown; field: string; id?: string }) {
  if (!(error instanceof ApiError) || error.field !== field) return null;
  return (
    <p class="field-error" id={id} role="alert">
      {error.message}
    </p>
  );
}

export function FormError({ error, fields }: { error?: unknown; fields: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError && error.field && fields.includes(error.field)) return null;
  return (
    <p class="error" role="alert">
      {(error as Error).message}
    </p>
  );
}
