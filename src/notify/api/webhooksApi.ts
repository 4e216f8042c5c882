// The management REST API as an HttpRoute mounted at `/api`: token check, body and query reading
// (text that may not be stored is refused here, for every route), dispatch over the route table,
// and errors as `{message, field?}` with the right HTTP status.
// It owns every `/api/*` path except `/api/keys…` (the gateway's keys API).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SqlDatabase } from '../../store/sql.js';
import type { HttpRoute } from '../../http/route.js';
import { readBody, BodyTimeoutError, BodyTooLargeError } from '../../http/readBody.js';
import { sendJson } from '../../http/sendJson.js';
import { constantTimeEqual } from '../../http/constantTimeEqual.js';
import { RpcError } from '../../rpc/errors.js';
import { silentLogger, type NotifyLogger } from '../notifyLogger.js';
import { createWebhookIds, type RandomBytes } from '../webhooks/webhookIds.js';
import { createWebhookRepository } from '../webhooks/webhookRepository.js';
import type { WebhookTier } from '../webhooks/webhookTypes.js';
import type { ApiDeps, ApiRoute } from './apiRoute.js';
import { createNotifyRoutes } from './notifyRoutes.js';
import { createDeliveryRoutes } from './deliveryRoutes.js';
import { createSigningKeyRoutes } from './signingKeyRoute.js';
import { buildOpenApiDocument } from './openApiDocument.js';
import { invalidField } from './apiSchemas.js';
import { findUnsafeText, unsafeTextProblem } from './unsafeText.js';

export interface WebhooksApiOptions {
  db: SqlDatabase;
  /** The process's notifier (URL policy, outbox append, wake, clock, retry window). */
  notifier: ApiDeps['notifier'] & { tier?: WebhookTier };
  /** The management auth token (X-Service-Token or X-Alchemy-Token). Secret: never logged. */
  authToken: string;
  /** Network names webhooks may be created on (those a follower serves). Default ['ETH_MAINNET']. */
  networks?: readonly string[];
  /** Tier of the auth token, for the webhook count limit. Default: the notifier's tier, else enterprise. */
  tier?: WebhookTier;
  randomBytes?: RandomBytes;
  logger?: NotifyLogger;
  /** Largest request body (100 000 addresses need about 5 MB). Default 8 MiB. */
  maxBodyBytes?: number;
  bodyTimeoutMs?: number;
  /** Mount point. Default `/api`. */
  prefix?: string;
  /** Shown in the OpenAPI document. */
  version?: string;
  /**
   * More endpoints under the same prefix, token and error handling (e.g. the follower's backfill
   * request); built with `defineRoute` and the same deps, and listed in the OpenAPI document.
   */
  extraRoutes?: (deps: ApiDeps) => ApiRoute[];
  /** Called after a backfill request (`from_block`, backfill-webhook) is committed: wake the follower. */
  onBackfillRequested?: () => void;
}

/** True for paths this API answers: everything under the prefix except the keys API. */
export function isWebhooksApiPath(pathname: string, prefix = '/api'): boolean {
  if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return false;
  const rest = pathname.slice(prefix.length);
  return !(rest === '/keys' || rest.startsWith('/keys/'));
}

function errorBody(error: RpcError): { message: string; field?: string } {
  const field = (error.data as { field?: unknown } | undefined)?.field;
  return typeof field === 'string' ? { message: error.message, field } : { message: error.message };
}

export function createWebhooksApi(options: WebhooksApiOptions): HttpRoute & { routes: readonly ApiRoute[] } {
  const prefix = options.prefix ?? '/api';
  const logger = options.logger ?? silentLogger;
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const deps: ApiDeps = {
    db: options.db,
    repo: createWebhookRepository(options.db),
    notifier: options.notifier,
    ids: createWebhookIds(options.randomBytes),
    networks: options.networks ?? ['ETH_MAINNET'],
    tier: options.tier ?? options.notifier.tier ?? 'enterprise',
    onBackfillRequested: options.onBackfillRequested,
  };
  const routes = [...createNotifyRoutes(deps), ...createDeliveryRoutes(deps), ...createSigningKeyRoutes(deps), ...(options.extraRoutes?.(deps) ?? [])];
  let openApiText: string | undefined;

  function authenticated(req: IncomingMessage): boolean {
    const header = req.headers['x-service-token'] ?? req.headers['x-alchemy-token'];
    const token = Array.isArray(header) ? header[0] : header;
    return typeof token === 'string' && constantTimeEqual(token, options.authToken);
  }

  async function readJson(req: IncomingMessage): Promise<unknown> {
    const raw = await readBody(req, { maxBytes: maxBodyBytes, timeoutMs: options.bodyTimeoutMs ?? 30_000 });
    if (raw.length === 0) return {};
    try {
      return JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      throw new RpcError('body: is not valid JSON', { httpStatus: 400, data: { field: 'body' } });
    }
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.slice(prefix.length) || '/';
    const method = req.method ?? 'GET';
    if (path === '/openapi.json' && (method === 'GET' || method === 'HEAD')) {
      openApiText ??= JSON.stringify(buildOpenApiDocument(routes, { version: options.version ?? '1', prefix }));
      return sendJson(res, 200, openApiText);
    }
    if (!authenticated(req)) {
      req.resume();
      return sendJson(res, 401, { message: 'Unauthenticated: send the auth token in the X-Service-Token header' });
    }
    const candidates = routes.filter((r) => r.path === path);
    if (candidates.length === 0) {
      req.resume();
      return sendJson(res, 404, { message: `no endpoint ${method} ${url.pathname}` });
    }
    const route = candidates.find((r) => r.method === method);
    if (!route) {
      req.resume();
      return sendJson(res, 405, { message: `${method} is not allowed on ${url.pathname}` }, { Allow: candidates.map((r) => r.method).join(', ') });
    }
    const body = method === 'GET' ? {} : await readJson(req);
    for (const [name, value] of url.searchParams) {
      const problem = unsafeTextProblem(value);
      if (problem) throw invalidField(name, problem);
    }
    const unsafe = findUnsafeText(body);
    if (unsafe) throw invalidField(unsafe.field, unsafe.problem);
    // Parsing and scanning a large body took a slice of the loop; validation (100,000 addresses) takes another.
    if (method !== 'GET') await new Promise<void>((resolve) => setImmediate(resolve));
    const result = await route.handle({ body, query: url.searchParams, nowMs: options.notifier.clock.now(), requestId });
    sendJson(res, 200, result);
  }

  return {
    prefix,
    routes,
    async handle(req, res, ctx) {
      try {
        await dispatch(req, res, ctx.requestId);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return sendJson(res, 413, { message: `body: larger than ${maxBodyBytes} bytes` });
        if (error instanceof BodyTimeoutError) return sendJson(res, 408, { message: 'body: not received in time' });
        if (error instanceof RpcError && error.httpStatus >= 400) return sendJson(res, error.httpStatus, errorBody(error));
        logger.error({ err: error, requestId: ctx.requestId, path: req.url?.split('?')[0] }, 'webhooks API request failed');
        sendJson(res, 500, { message: `Internal error (request id ${ctx.requestId})` });
      }
    },
  };
}
