// The shape of one management API endpoint: what the router dispatches on, what the OpenAPI
// document describes, and the handler. The body schema both validates and documents the request.
import type { z } from 'zod';
import type { SqlDatabase } from '../../store/sql.js';
import type { Notifier } from '../createNotifier.js';
import type { WebhookIds } from '../webhooks/webhookIds.js';
import type { WebhookRepository } from '../webhooks/webhookRepository.js';
import type { WebhookTier } from '../webhooks/webhookTypes.js';
import { parseBody } from './apiSchemas.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface QueryParamDoc {
  name: string;
  required: boolean;
  type: 'string' | 'integer';
  description: string;
}

export interface ApiInput<B> {
  body: B;
  query: URLSearchParams;
  nowMs: number;
  requestId: string;
}

export interface ApiRoute {
  method: HttpMethod;
  /** Path below the `/api` prefix, e.g. `/create-webhook`. */
  path: string;
  operationId: string;
  summary: string;
  tag: 'Webhooks (provider-compatible)' | 'Deliveries';
  query?: QueryParamDoc[];
  body?: z.ZodType;
  /** JSON schema of the 200 response. */
  response: object;
  /** Returns the JSON body of a 200 reply; throws ServiceError subclasses for the rest. */
  handle(input: ApiInput<unknown>): Promise<unknown>;
}

/** Everything the handlers use. */
export interface ApiDeps {
  db: SqlDatabase;
  repo: WebhookRepository;
  notifier: Pick<Notifier, 'appendEvents' | 'wake' | 'urlPolicy' | 'retryWindowMs' | 'clock'>;
  ids: WebhookIds;
  networks: readonly string[];
  tier: WebhookTier;
  /** Called after a backfill request is committed, so the follower takes it up at once. */
  onBackfillRequested?: () => void;
}

export function defineRoute<B = undefined>(
  spec: Omit<ApiRoute, 'handle' | 'body'> & { body?: z.ZodType<B>; handle(input: ApiInput<B>): Promise<unknown> },
): ApiRoute {
  return {
    ...spec,
    handle: (input) => spec.handle({ ...input, body: (spec.body ? parseBody(spec.body, input.body) : undefined) as B }),
  };
}
