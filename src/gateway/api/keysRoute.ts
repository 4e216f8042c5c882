// Management API for API keys, routes of the management kit mounted at `/api/keys`: list, create
// (secret shown once), show, revoke, and daily usage. Same conventions as the webhooks API:
// snake_case fields, `{data}` replies, `{message, field?}` errors; token and body are the kit's.
import { z } from 'zod';
import type { ApiKeyRecord, ApiKeyRepository } from '../../store/types.js';
import { API_KEY_TIERS } from '../../store/types.js';
import { defineApiRoute, type ApiRoute } from '../../http/api/apiRoute.js';
import { invalidField } from '../../http/api/parseBody.js';
import { ResourceNotFoundError } from '../../rpc/errors.js';
import type { Clock } from '../clock.js';
import { createApiKey } from '../keys/apiKeys.js';
import type { KeyCache } from '../keys/keyCache.js';
import type { UsageRecorder } from '../usage/usageRecorder.js';
import { utcDay } from '../usage/usageRecorder.js';

export interface KeysRoutesOptions {
  repo: ApiKeyRepository;
  keyCache: KeyCache;
  usage: UsageRecorder;
  clock: Clock;
}

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

const CreateKeyBody = z.object({
  name: z.string({ error: 'is required' }).trim().min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }),
  tier: z.enum(API_KEY_TIERS, { error: `must be one of ${API_KEY_TIERS.join(', ')}` }).default('free'),
  allowed_origins: z
    .array(z.string().regex(ORIGIN, { error: 'expected an origin such as https://app.example.com' }))
    .max(100, { error: 'at most 100 origins' })
    .optional(),
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const TAG = 'API keys';

/** The key as the API shows it: everything but the secret, which is never stored. */
function keyView(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    tier: k.tier,
    active: k.active,
    key_prefix: k.keyPrefix,
    allowed_origins: k.allowedOrigins,
    created_at: new Date(k.createdAt).toISOString(),
    last_used_at: k.lastUsedAt === null ? null : new Date(k.lastUsedAt).toISOString(),
    revoked_at: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString(),
  };
}

const TIME_OR_NULL = { type: ['string', 'null'], format: 'date-time' } as const;
const KEY_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'tier', 'active', 'key_prefix', 'allowed_origins', 'created_at', 'last_used_at', 'revoked_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    tier: { type: 'string', enum: API_KEY_TIERS },
    active: { type: 'boolean' },
    key_prefix: { type: 'string', description: 'first characters of the secret, to recognise it' },
    allowed_origins: { type: ['array', 'null'], items: { type: 'string' }, description: 'browser origins allowed to use the key; null: any' },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: TIME_OR_NULL,
    revoked_at: TIME_OR_NULL,
  },
} as const;
const COUNTS = { type: 'object', properties: { requests: { type: 'integer' }, compute_units: { type: 'integer' } } } as const;
const data = (schema: object) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const NOT_FOUND = { 404: 'Unknown key id' };

export function createKeysRoutes(options: KeysRoutesOptions): ApiRoute[] {
  const { repo } = options;

  const requireKey = async (id: string): Promise<ApiKeyRecord> => {
    const key = await repo.findById(id);
    if (!key) throw new ResourceNotFoundError(`id: no API key ${id.slice(0, 80)}`, { httpStatus: 404, data: { field: 'id' } });
    return key;
  };

  const usage = async (id: string, query: URLSearchParams) => {
    await requireKey(id);
    const to = query.get('to') || utcDay(options.clock.now());
    const from = query.get('from') || utcDay(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS);
    for (const [field, day] of [['from', from], ['to', to]] as const) {
      if (!DAY.test(day) || Number.isNaN(Date.parse(day))) throw invalidField(field, 'must be a UTC day as YYYY-MM-DD');
    }
    if (from > to) throw invalidField('from', 'must not be after to');
    await options.usage.flush();
    const rows = await repo.usage(id, from, to);
    type Counts = { requests: number; compute_units: number };
    const days = new Map<string, { day: string; methods: Record<string, Counts> } & Counts>();
    const totals: Counts = { requests: 0, compute_units: 0 };
    for (const row of rows) {
      let day = days.get(row.day);
      if (!day) {
        day = { day: row.day, requests: 0, compute_units: 0, methods: {} };
        days.set(row.day, day);
      }
      day.requests += row.requests;
      day.compute_units += row.computeUnits;
      day.methods[row.method] = { requests: row.requests, compute_units: row.computeUnits };
      totals.requests += row.requests;
      totals.compute_units += row.computeUnits;
    }
    return { key_id: id, from, to, totals, days: [...days.values()] };
  };

  return [
    defineApiRoute({
      method: 'GET',
      path: '/keys',
      operationId: 'list-keys',
      summary: 'List all API keys, oldest first (secrets are never stored, so never listed).',
      tag: TAG,
      response: data({ type: 'array', items: KEY_SCHEMA }),
      async handle() {
        return { data: (await repo.list()).map(keyView) };
      },
    }),
    defineApiRoute({
      method: 'POST',
      path: '/keys',
      operationId: 'create-key',
      summary: 'Create an API key. The reply holds its secret (api_key), shown this once.',
      tag: TAG,
      body: CreateKeyBody,
      maxBodyBytes: 64 * 1024,
      status: 201,
      response: data({ ...KEY_SCHEMA, required: [...KEY_SCHEMA.required, 'api_key'], properties: { ...KEY_SCHEMA.properties, api_key: { type: 'string', description: 'the secret: use it in /v2/<api_key>' } } }),
      async handle({ body }) {
        const { record, apiKey } = await createApiKey(repo, { name: body.name, tier: body.tier, allowedOrigins: body.allowed_origins }, options.clock);
        return { data: { ...keyView(record), api_key: apiKey } };
      },
    }),
    defineApiRoute({
      method: 'GET',
      path: '/keys/:id',
      operationId: 'get-key',
      summary: 'One API key.',
      tag: TAG,
      errors: NOT_FOUND,
      response: data(KEY_SCHEMA),
      async handle({ params }) {
        return { data: keyView(await requireKey(params.id!)) };
      },
    }),
    defineApiRoute({
      method: 'POST',
      path: '/keys/:id/revoke',
      operationId: 'revoke-key',
      summary: 'Revoke an API key; it is refused at once, also by a running gateway that had it cached.',
      tag: TAG,
      errors: NOT_FOUND,
      response: data(KEY_SCHEMA),
      async handle({ params }) {
        const id = params.id!;
        await requireKey(id);
        const revoked = await repo.revoke(id, options.clock.now());
        options.keyCache.invalidate(id);
        return { data: keyView(revoked!) };
      },
    }),
    defineApiRoute({
      method: 'GET',
      path: '/keys/:id/usage',
      operationId: 'key-usage',
      summary: 'Requests and compute units of one key per UTC day and method (default: the last 30 days).',
      tag: TAG,
      errors: NOT_FOUND,
      query: [
        { name: 'from', required: false, type: 'string', description: 'first UTC day, YYYY-MM-DD (default: 29 days before to)' },
        { name: 'to', required: false, type: 'string', description: 'last UTC day, YYYY-MM-DD (default: today)' },
      ],
      response: data({
        type: 'object',
        properties: {
          key_id: { type: 'string' },
          from: { type: 'string' },
          to: { type: 'string' },
          totals: COUNTS,
          days: {
            type: 'array',
            items: { type: 'object', properties: { day: { type: 'string' }, ...COUNTS.properties, methods: { type: 'object', additionalProperties: COUNTS } } },
          },
        },
      }),
      async handle({ params, query }) {
        return { data: await usage(params.id!, query) };
      },
    }),
  ];
}
