// Validation failures of the management API as 400s whose message and `field` name the offending
// field (`addresses[2]: must be …`): the body against its zod schema, and single fields.
import type { z } from 'zod';
import { InvalidParamsError } from '../../rpc/errors.js';

function issueMessage(issue: z.core.$ZodIssue): string {
  const where = issue.path.length ? issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${String(p)}` : String(p))).join('') : 'body';
  const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
  return `${where}: ${missing ? 'is required' : issue.message.replace(/^Invalid input: expected (\w+), received (\w+)$/, 'must be a $1')}`;
}

/** Parses `input` or throws a 400 InvalidParamsError naming the first bad field, e.g. `addresses[2]: must be …`. */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw invalidField('body', 'must be a JSON object');
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const message = issueMessage(issue);
  throw new InvalidParamsError(message, { httpStatus: 400, data: { field: message.slice(0, message.indexOf(':')) } });
}

/** A 400 for one field. */
export function invalidField(field: string, problem: string): InvalidParamsError {
  return new InvalidParamsError(`${field}: ${problem}`, { httpStatus: 400, data: { field } });
}
