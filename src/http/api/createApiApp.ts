// The management kit: one Hono router for every management route (keys, webhooks, deliveries,
// backfill, operations, the OpenAPI document), with one auth check (the token header, or a dashboard
// session through `SessionCheck`), one bounded body reader with
// the unsafe-text checks, and one error shape, `{message, field?}`. What each route does is its
// owner's; the JSON-RPC endpoint never comes here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { RpcError } from '../../rpc/errors.js';
import { constantTimeEqual } from '../constantTimeEqual.js';
import { BodyTimeoutError, BodyTooLargeError, readBody } from '../readBody.js';
import type { HttpRoute } from '../route.js';
import { ApiReply, type ApiRoute } from './apiRoute.js';
import { buildOpenApiDocument, type ApiMount } from './openApiDocument.js';
import { invalidField } from './parseBody.js';
import { findUnsafeText, unsafeTextProblem } from './unsafeText.js';

export interface ApiAppOptions {
  /** Route tables by prefix; the first one's prefix (normally `/api`) also serves `/openapi.json`. */
  mounts: readonly ApiMount[];
  /** The management auth token (X-Service-Token or X-Alchemy-Token). None: every route that needs it answers 401. */
  authToken: string | undefined;
  clock?: { now(): number };
  /** Largest request body (100 000 addresses need about 5 MB). Default 8 MiB; a route may ask for less. */
  maxBodyBytes?: number;
  /** Whole-body deadline. Default 30 s. */
  bodyTimeoutMs?: number;
  /** Shown in the OpenAPI document. */
  version?: string;
  logger?: { error(fields: object, message: string): void };
  /** Also accept a dashboard session (cookie, and CSRF checks on changes) where the token header is absent. */
  sessions?: SessionCheck;
}

/** Why a request without the token header may or may not pass; undefined: it carries no session either. */
export type SessionVerdict = { ok: true } | { ok: false; status: 401 | 403; message: string };

export interface SessionCheck {
  check(req: IncomingMessage): SessionVerdict | undefined;
}

export interface ApiApp extends HttpRoute {
  readonly app: Hono<{ Bindings: HttpBindings }>;
  /** Every mount, the OpenAPI route included. */
  readonly mounts: readonly ApiMount[];
  readonly pathWords: readonly string[];
  document(): object;
  /** True for paths this app answers (anything under a prefixed mount, and each root route). */
  owns(path: string): boolean;
  /** Answers one request; resolves to the matched route (`/api/keys/:id`) or `not_found`, for metrics. */
  serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<string>;
}

interface Exchange {
  requestId: string;
  label: string;
}

const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

function errorBody(error: RpcError): { message: string; field?: string } {
  const field = (error.data as { field?: unknown } | undefined)?.field;
  return typeof field === 'string' ? { message: error.message, field } : { message: error.message };
}

/** Decoded path parameters; a malformed percent-encoding is a 400 naming the parameter. */
function pathParams(c: Context): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(c.req.param() as Record<string, string>)) {
    if (value.includes('%')) {
      try {
        decodeURIComponent(value);
      } catch {
        throw invalidField(name, 'malformed percent-encoding in the path');
      }
    }
    params[name] = value;
  }
  return params;
}

export function createApiApp(options: ApiAppOptions): ApiApp {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const clock = options.clock ?? { now: () => Date.now() };
  const exchanges = new WeakMap<IncomingMessage, Exchange>();
  const [first, ...rest] = options.mounts;
  if (!first) throw new TypeError('the management API needs at least one mount');
  let documentText: string | undefined;
  const openApiRoute: ApiRoute = {
    method: 'GET',
    path: '/openapi.json',
    operationId: 'openapi',
    summary: 'This document.',
    tag: 'Operations',
    auth: false,
    response: { type: 'object', description: 'OpenAPI 3.1 document' },
    handle: async () => new ApiReply(200, (documentText ??= JSON.stringify(document()))),
  };
  const mounts: ApiMount[] = [{ prefix: first.prefix, routes: [...first.routes, openApiRoute] }, ...rest];
  const document = () => buildOpenApiDocument(mounts, { version: options.version ?? '1' });

  const exchangeOf = (c: Context<{ Bindings: HttpBindings }>): Exchange => exchanges.get(c.env.incoming) ?? { requestId: '-', label: 'not_found' };
  const reply = (c: Context<{ Bindings: HttpBindings }>, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return new Response(text, {
      status,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), 'X-Request-Id': exchangeOf(c).requestId, 'Cache-Control': 'no-store', ...headers },
    });
  };

  /** The token header, else a dashboard session; a refusal carries its status and message. */
  const authorize = (req: IncomingMessage): SessionVerdict => {
    const header = req.headers['x-service-token'] ?? req.headers['x-alchemy-token'];
    const token = Array.isArray(header) ? header[0] : header;
    if (token !== undefined || !options.sessions) {
      if (!!options.authToken && typeof token === 'string' && constantTimeEqual(token, options.authToken)) return { ok: true };
    } else {
      const verdict = options.sessions.check(req);
      if (verdict) return verdict;
    }
    const message = options.authToken ? 'Unauthenticated: send the auth token in the X-Service-Token header' : 'Unauthenticated: the management API is disabled (no auth token configured)';
    return { ok: false, status: 401, message };
  };
  const refuse = (c: Context<{ Bindings: HttpBindings }>, verdict: SessionVerdict & { ok: false }) => {
    c.env.incoming.resume();
    return reply(c, verdict.status, { message: verdict.message });
  };

  const readJson = async (req: IncomingMessage, limit: number): Promise<unknown> => {
    const raw = await readBody(req, { maxBytes: limit, timeoutMs: options.bodyTimeoutMs ?? 30_000 });
    if (raw.length === 0) return {};
    try {
      return JSON.parse(raw.toString('utf8')) as unknown;
    } catch {
      throw new RpcError('body: is not valid JSON', { httpStatus: 400, data: { field: 'body' } });
    }
  };

  const app = new Hono<{ Bindings: HttpBindings }>();
  const publicPaths = new Set(mounts.flatMap((m) => m.routes.filter((r) => r.auth === false).map((r) => `${m.prefix}${r.path}`)));
  for (const mount of mounts) {
    if (!mount.prefix) continue;
    // Every path under a prefix needs the token, known or not: a stranger learns nothing of the routes.
    const gate = async (c: Context<{ Bindings: HttpBindings }>, next: () => Promise<void>) => {
      if (!publicPaths.has(c.req.path)) {
        const verdict = authorize(c.env.incoming);
        if (!verdict.ok) return refuse(c, verdict);
      }
      await next();
    };
    app.use(mount.prefix, gate);
    app.use(`${mount.prefix}/*`, gate);
  }
  for (const mount of mounts) {
    for (const route of mount.routes) {
      const fullPath = `${mount.prefix}${route.path}`;
      app.on(route.method, fullPath, async (c) => {
        const incoming = c.env.incoming;
        const exchange = exchangeOf(c);
        exchange.label = fullPath;
        if (route.auth !== false) {
          const verdict = authorize(incoming);
          if (!verdict.ok) return refuse(c, verdict);
        }
        const url = new URL(incoming.url ?? '/', 'http://localhost');
        const params = pathParams(c);
        const body = route.method === 'GET' ? {} : await readJson(incoming, route.maxBodyBytes ?? maxBodyBytes);
        for (const [name, value] of [...Object.entries(params), ...url.searchParams]) {
          const problem = unsafeTextProblem(value);
          if (problem) throw invalidField(name, problem);
        }
        const unsafe = findUnsafeText(body);
        if (unsafe) throw invalidField(unsafe.field, unsafe.problem);
        // Parsing and scanning a large body took a slice of the loop; validation (100,000 addresses) takes another.
        if (route.method !== 'GET') await new Promise<void>((resolve) => setImmediate(resolve));
        const result = await route.handle({ body, query: url.searchParams, params, nowMs: clock.now(), requestId: exchange.requestId, headers: incoming.headers });
        if (result instanceof ApiReply) return reply(c, result.status, result.body, result.headers);
        return reply(c, route.status ?? 200, result);
      });
    }
  }
  // A known path asked with another method: 405 naming the methods it takes.
  const methodsByPath = new Map<string, string[]>();
  for (const mount of mounts) for (const r of mount.routes) methodsByPath.set(`${mount.prefix}${r.path}`, [...(methodsByPath.get(`${mount.prefix}${r.path}`) ?? []), r.method]);
  for (const [path, methods] of methodsByPath) {
    app.all(path, (c) => {
      c.env.incoming.resume();
      return reply(c, 405, { message: `${c.req.method} is not allowed on ${c.req.path}` }, { Allow: methods.join(', ') });
    });
  }
  app.notFound((c) => {
    c.env.incoming.resume();
    return reply(c, 404, { message: `no endpoint ${c.req.method} ${c.req.path}` });
  });
  app.onError((error, c) => {
    if (error instanceof BodyTooLargeError) return reply(c, 413, { message: `body: larger than ${error.limitBytes} bytes` });
    if (error instanceof BodyTimeoutError) return reply(c, 408, { message: 'body: not received in time' });
    if (error instanceof RpcError && error.httpStatus >= 400) {
      const retryAfterSec = (error.data as { retryAfterSec?: unknown } | undefined)?.retryAfterSec;
      return reply(c, error.httpStatus, errorBody(error), typeof retryAfterSec === 'number' ? { 'Retry-After': String(retryAfterSec) } : {});
    }
    const { requestId } = exchangeOf(c);
    options.logger?.error({ err: error, requestId, path: c.req.path }, 'management API request failed');
    return reply(c, 500, { message: `Internal error (request id ${requestId})` });
  });

  // Not Hono's default: the process's global Request/Response stay as they are, and what happens to
  // an unread body is decided here (readBody drains what it refuses), not by the adapter.
  const listener = getRequestListener(app.fetch, { overrideGlobalObjects: false, autoCleanupIncoming: false });
  const rootPaths = new Set(mounts.filter((m) => !m.prefix).flatMap((m) => m.routes.map((r) => r.path)));
  const prefixes = mounts.filter((m) => m.prefix).map((m) => m.prefix);
  const serve = async (req: IncomingMessage, res: ServerResponse, requestId: string): Promise<string> => {
    const exchange: Exchange = { requestId, label: 'not_found' };
    exchanges.set(req, exchange);
    await listener(req, res);
    return exchange.label;
  };
  return {
    app,
    mounts,
    prefix: first.prefix,
    pathWords: [...new Set(mounts.flatMap((m) => [...m.prefix.split('/'), ...m.routes.flatMap((r) => r.path.split('/').filter((w) => !w.startsWith(':')))]))].filter(Boolean),
    document,
    owns: (path) => rootPaths.has(path) || prefixes.some((p) => path === p || path.startsWith(`${p}/`)),
    serve,
    handle: async (req, res, ctx) => void (await serve(req, res, ctx.requestId)),
  };
}
