// Management API for API keys, mounted at `/api/keys`: list, create (secret shown once), show,
// revoke, and daily usage. Callers authenticate with the service auth token in `X-Service-Token`
// (or `X-Alchemy-Token`, as the reference provider's SDK sends it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ApiKeyRecord, ApiKeyRepository } from '../../store/types.js';
import { API_KEY_TIERS } from '../../store/types.js';
import type { HttpRoute } from '../../http/route.js';
import { readBody, BodyTooLargeError } from '../../http/readBody.js';
import { sendJson } from '../../http/sendJson.js';
import { constantTimeEqual } from '../../http/constantTimeEqual.js';
import type { Clock } from '../clock.js';
import { createApiKey } from '../keys/apiKeys.js';
import type { KeyCache } from '../keys/keyCache.js';
import type { UsageRecorder } from '../usage/usageRecorder.js';
import { utcDay } from '../usage/usageRecorder.js';

export interface KeysRouteOptions {
  repo: ApiKeyRepository;
  /** Service auth token; without one every request is refused. */
  authToken: string | undefined;
  keyCache: KeyCache;
  usage: UsageRecorder;
  clock: Clock;
  prefix?: string;
}

const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

const CreateKeyBody = z.object({
  name: z.string().trim().min(1).max(200),
  tier: z.enum(API_KEY_TIERS).default('free'),
  allowedOrigins: z
    .array(z.string().regex(ORIGIN, { error: 'expected an origin such as https://app.example.com' }))
    .max(100)
    .optional(),
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The key as the API shows it: everything but the secret, which is never stored. */
function keyView(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    tier: k.tier,
    active: k.active,
    keyPrefix: k.keyPrefix,
    allowedOrigins: k.allowedOrigins,
    createdAt: new Date(k.createdAt).toISOString(),
    lastUsedAt: k.lastUsedAt === null ? null : new Date(k.lastUsedAt).toISOString(),
    revokedAt: k.revokedAt === null ? null : new Date(k.revokedAt).toISOString(),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let body: Buffer;
  try {
    body = await readBody(req, { maxBytes: 64 * 1024, timeoutMs: 10_000 });
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new ApiError(413, 'payload_too_large', 'request body exceeds 65536 bytes');
    throw new ApiError(408, 'request_timeout', 'request body not received in time');
  }
  try {
    return body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_json', 'request body is not valid JSON');
  }
}

export function createKeysRoute(options: KeysRouteOptions): HttpRoute {
  const prefix = options.prefix ?? '/api/keys';
  const { repo } = options;

  const authorized = (req: IncomingMessage): boolean => {
    if (!options.authToken) return false;
    const given = req.headers['x-service-token'] ?? req.headers['x-alchemy-token'];
    return typeof given === 'string' && constantTimeEqual(given, options.authToken);
  };

  const requireKey = async (id: string): Promise<ApiKeyRecord> => {
    const key = await repo.findById(id);
    if (!key) throw new ApiError(404, 'not_found', `no API key with id ${id.slice(0, 80)}`);
    return key;
  };

  const usage = async (id: string, query: URLSearchParams) => {
    await requireKey(id);
    const to = query.get('to') ?? utcDay(options.clock.now());
    const from = query.get('from') ?? utcDay(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS);
    if (!DAY.test(from) || !DAY.test(to) || Number.isNaN(Date.parse(from)) || Number.isNaN(Date.parse(to))) {
      throw new ApiError(400, 'invalid_query', 'from and to must be UTC days as YYYY-MM-DD');
    }
    if (from > to) throw new ApiError(400, 'invalid_query', 'from must not be after to');
    await options.usage.flush();
    const rows = await repo.usage(id, from, to);
    const days = new Map<string, { day: string; requests: number; computeUnits: number; methods: Record<string, { requests: number; computeUnits: number }> }>();
    let requests = 0;
    let computeUnits = 0;
    for (const row of rows) {
      let day = days.get(row.day);
      if (!day) {
        day = { day: row.day, requests: 0, computeUnits: 0, methods: {} };
        days.set(row.day, day);
      }
      day.requests += row.requests;
      day.computeUnits += row.computeUnits;
      day.methods[row.method] = { requests: row.requests, computeUnits: row.computeUnits };
      requests += row.requests;
      computeUnits += row.computeUnits;
    }
    return { keyId: id, from, to, totals: { requests, computeUnits }, days: [...days.values()] };
  };

  /** Dispatches `rest` (the path after the prefix, split on `/`) to a handler. */
  const route = async (req: IncomingMessage, rest: string[], query: URLSearchParams): Promise<[number, unknown]> => {
    const method = req.method ?? 'GET';
    const notAllowed = () => new ApiError(405, 'method_not_allowed', `${method} is not allowed here`);
    if (rest.length === 0) {
      if (method === 'GET') return [200, { keys: (await repo.list()).map(keyView) }];
      if (method !== 'POST') throw notAllowed();
      const parsed = CreateKeyBody.safeParse(await readJson(req));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ApiError(400, 'invalid_body', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
      }
      const { record, apiKey } = await createApiKey(repo, parsed.data, options.clock);
      return [201, { key: keyView(record), apiKey }];
    }
    const [id, action, ...extra] = rest;
    if (extra.length > 0 || !id) throw new ApiError(404, 'not_found', 'no such endpoint');
    if (action === undefined) {
      if (method !== 'GET') throw notAllowed();
      return [200, { key: keyView(await requireKey(id)) }];
    }
    if (action === 'revoke') {
      if (method !== 'POST') throw notAllowed();
      await requireKey(id);
      const revoked = await repo.revoke(id, options.clock.now());
      options.keyCache.invalidate(id);
      return [200, { key: keyView(revoked!) }];
    }
    if (action === 'usage') {
      if (method !== 'GET') throw notAllowed();
      return [200, await usage(id, query)];
    }
    throw new ApiError(404, 'not_found', 'no such endpoint');
  };

  return {
    prefix,
    async handle(req: IncomingMessage, res: ServerResponse, ctx: { requestId: string }) {
      const headers = { 'X-Request-Id': ctx.requestId, 'Cache-Control': 'no-store' };
      if (!authorized(req)) {
        const message = options.authToken ? 'missing or wrong auth token (X-Service-Token header)' : 'management API disabled: no auth token configured';
        sendJson(res, 401, { error: { code: 'unauthorized', message } }, headers);
        return;
      }
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      try {
        const rest = path.slice(prefix.length).split('/').filter(Boolean).map((s) => decodeURIComponent(s));
        const [status, body] = await route(req, rest, new URLSearchParams(q === -1 ? '' : url.slice(q + 1)));
        sendJson(res, status, body, headers);
      } catch (error) {
        if (error instanceof ApiError) sendJson(res, error.status, { error: { code: error.code, message: error.message } }, headers);
        else if (error instanceof URIError) sendJson(res, 400, { error: { code: 'invalid_path', message: 'malformed percent-encoding in path' } }, headers);
        else throw error;
      }
    },
  };
}
