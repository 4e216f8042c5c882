// Query-string and lookup helpers shared by the endpoint handlers: webhook_id, cursor pages, and
// the 404 for an unknown webhook.
import { ResourceNotFoundError } from '../../rpc/errors.js';
import type { WebhookRepository } from '../webhooks/webhookRepository.js';
import type { WebhookRecord } from '../webhooks/webhookTypes.js';
import { invalidField } from './apiSchemas.js';
import type { QueryParamDoc } from './apiRoute.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export function queryWebhookId(query: URLSearchParams): string {
  const id = query.get('webhook_id');
  if (!id) throw invalidField('webhook_id', 'is required');
  return id;
}

/** `limit` (1…1000, default 100) and the cursor from `after` (or the SDK's `pageKey`). */
export function queryPage(query: URLSearchParams): { limit: number; after: string | null } {
  const raw = query.get('limit');
  const limit = raw === null || raw === '' ? DEFAULT_PAGE_SIZE : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw invalidField('limit', `must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  return { limit, after: query.get('after') || query.get('pageKey') || null };
}

/** The provider's pagination object; `after` is left out on the last page. */
export function pagination(after: string | null, totalCount?: number): object {
  return { cursors: after ? { after } : {}, ...(totalCount !== undefined && { total_count: totalCount }) };
}

export async function loadWebhook(repo: WebhookRepository, id: string): Promise<WebhookRecord> {
  const webhook = await repo.get(id);
  if (!webhook) throw new ResourceNotFoundError(`webhook_id: no webhook ${id}`, { httpStatus: 404, data: { field: 'webhook_id' } });
  return webhook;
}

export const WEBHOOK_ID_PARAM: QueryParamDoc = { name: 'webhook_id', required: true, type: 'string', description: 'id of the webhook (wh_…)' };
export const PAGE_PARAMS: QueryParamDoc[] = [
  { name: 'limit', required: false, type: 'integer', description: `page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})` },
  { name: 'after', required: false, type: 'string', description: 'cursor from pagination.cursors.after of the previous page' },
  { name: 'pageKey', required: false, type: 'string', description: 'alias of after (SDK spelling)' },
];

export const PAGINATION_SCHEMA = {
  type: 'object',
  properties: { cursors: { type: 'object', properties: { after: { type: 'string' } } }, total_count: { type: 'integer' } },
} as const;
