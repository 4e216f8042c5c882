// The management router as the service mounts it (keys, webhooks, deliveries, signing keys,
// backfill, operations): its OpenAPI document and its routes are the same set, and every route
// answers auth, input and method errors the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../store/sql.js';
import { createNotifier, type Notifier } from '../notify/createNotifier.js';
import { createWebhooksApi } from '../notify/api/webhooksApi.js';
import { createFollowerRoutes } from '../notify/follow/backfillRoute.js';
import { notifyTestDatabases } from '../notify/testing/notifyTestDatabases.js';
import { startTestGateway, type TestGateway } from './testing/startTestGateway.js';

interface Operation {
  method: string;
  /** Full path as served, with `{name}` parameters. */
  path: string;
  secured: boolean;
  hasBody: boolean;
}

interface OpenApiDoc {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }> & { servers?: Array<{ url: string }> }>;
}

const join = (base: string, path: string) => `${base === '/' ? '' : base}${path}`;

function operationsOf(doc: OpenApiDoc): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => {
    const base = item.servers?.[0]?.url ?? doc.servers[0]!.url;
    return Object.entries(item)
      .filter(([method]) => method !== 'servers')
      .map(([method, op]) => {
        const o = op as { security?: unknown[]; requestBody?: unknown };
        return { method: method.toUpperCase(), path: join(base, path), secured: !(Array.isArray(o.security) && o.security.length === 0), hasBody: o.requestBody !== undefined };
      });
  });
}

const concrete = (path: string) => path.replace(/\{\w+\}/g, 'k_probe');

let t: TestGateway;
let db: SqlDatabase;
let cleanup: () => Promise<void>;
let notifier: Notifier;
let doc: OpenApiDoc;
let operations: Operation[];

beforeAll(async () => {
  ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
  notifier = createNotifier({ db });
  const webhooks = createWebhooksApi({ db, notifier, authToken: 'unused-here', extraRoutes: createFollowerRoutes });
  t = await startTestGateway({ apiRoutes: webhooks.routes, metricsRequireToken: true });
  doc = (await (await fetch(`${t.url}/api/openapi.json`)).json()) as OpenApiDoc;
  operations = operationsOf(doc);
});
afterAll(async () => {
  await t.close();
  await notifier.stop();
  await cleanup();
});

function call(op: { method: string; path: string }, init: { token?: string | null; alchemy?: boolean; body?: string; query?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = init.token === undefined ? t.authToken : init.token;
  if (token !== null) headers[init.alchemy ? 'x-alchemy-token' : 'x-service-token'] = token;
  return fetch(`${t.url}${concrete(op.path)}${init.query ?? ''}`, { method: op.method, headers, body: op.method === 'GET' ? undefined : (init.body ?? '{}') });
}

describe('the OpenAPI document and the mounted routes', () => {
  it('default: every mounted route is in the document and every documented operation is mounted', () => {
    const mounted = t.gateway.api.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    const documented = operations.map((o) => `${o.method} ${o.path}`);
    expect(new Set(mounted).size).toBe(mounted.length);
    expect([...documented].sort()).toEqual([...mounted].sort());
    // What the service mounts: keys, webhooks, deliveries, signing key, backfill, operations, the document.
    expect(documented).toEqual(
      expect.arrayContaining([
        'GET /api/keys',
        'POST /api/keys',
        'GET /api/keys/{id}',
        'POST /api/keys/{id}/revoke',
        'GET /api/keys/{id}/usage',
        'POST /api/create-webhook',
        'GET /api/webhook-deliveries',
        'GET /api/webhook-signing-key',
        'POST /api/backfill-webhook',
        'GET /api/openapi.json',
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
      ]),
    );
    expect(doc.openapi).toBe('3.1.0');
  });

  it('behavior: every documented operation is answered by the router, not its 404', async () => {
    for (const op of operations) {
      const r = await call(op);
      const body = r.headers.get('content-type')?.includes('json') ? ((await r.json()) as { message?: string }) : {};
      expect([op.path, body.message?.startsWith('no endpoint') ?? false]).toEqual([op.path, false]);
    }
  });
});

describe('the same auth and errors on every route', () => {
  it('error: a missing or wrong token is 401 {message} with a request id on every secured route; X-Alchemy-Token is accepted', async () => {
    const secured = operations.filter((o) => o.secured);
    expect(secured.length).toBeGreaterThan(20);
    for (const op of secured) {
      for (const token of [null, 'wrong-token', `${t.authToken}x`]) {
        const r = await call(op, { token });
        expect([op.method, op.path, r.status, await r.json()]).toEqual([op.method, op.path, 401, { message: 'Unauthenticated: send the auth token in the X-Service-Token header' }]);
        expect(r.headers.get('x-request-id')).toBeTruthy();
        expect(r.headers.get('cache-control')).toBe('no-store');
      }
      expect([op.path, (await call(op, { alchemy: true })).status]).not.toEqual([op.path, 401]);
    }
  });

  it('error: the public routes answer without a token', async () => {
    const open = operations.filter((o) => !o.secured).map((o) => o.path);
    expect(open.sort()).toEqual(['/api/openapi.json', '/healthz', '/readyz']);
    for (const path of open) expect((await call({ method: 'GET', path }, { token: null })).status).toBe(200);
  });

  it('error: a control character in the query string is a 400 naming the parameter, on every route', async () => {
    for (const op of operations) {
      const r = await call(op, { query: '?probe=a%01b' });
      expect([op.method, op.path, r.status, await r.json()]).toEqual([op.method, op.path, 400, { message: 'probe: must not contain control characters (U+0001)', field: 'probe' }]);
    }
  });

  it('error: a body that is not JSON is a 400 naming the body, on every route that takes one', async () => {
    const withBody = operations.filter((o) => o.method !== 'GET');
    expect(withBody.length).toBeGreaterThan(10);
    for (const op of withBody) {
      const r = await call(op, { body: '{"webhook_id":' });
      expect([op.method, op.path, r.status, await r.json()]).toEqual([op.method, op.path, 400, { message: 'body: is not valid JSON', field: 'body' }]);
    }
  });

  it('error: a body over the limit is a 413 {message} on every route that takes one', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(8 * 1024 * 1024) });
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      const r = await call(op, { body: big });
      const body = (await r.json()) as { message: string };
      expect([op.path, r.status, /^body: larger than \d+ bytes$/.test(body.message)]).toEqual([op.path, 413, true]);
    }
  });

  it('error: another method on a known path is 405 {message} with Allow, on every path', async () => {
    const byPath = new Map<string, string[]>();
    for (const op of operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op.method]);
    for (const [path, methods] of byPath) {
      const other = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !methods.includes(m))!;
      const r = await call({ method: other, path });
      expect([path, r.status, r.headers.get('allow'), await r.json()]).toEqual([path, 405, methods.join(', '), { message: `${other} is not allowed on ${concrete(path)}` }]);
    }
  });

  it('error: an unknown /api path is 401 without the token and 404 {message} with it', async () => {
    expect((await call({ method: 'GET', path: '/api/no-such-thing' }, { token: null })).status).toBe(401);
    const r = await call({ method: 'GET', path: '/api/no-such-thing' });
    expect([r.status, await r.json()]).toEqual([404, { message: 'no endpoint GET /api/no-such-thing' }]);
  });

  it('error: without a configured auth token every secured route is 401 saying so', async () => {
    const bare = await startTestGateway({ authToken: undefined });
    try {
      for (const path of ['/api/keys', '/api/keys/k_probe/usage']) {
        const r = await fetch(`${bare.url}${path}`, { headers: { 'x-service-token': 'anything' } });
        expect([r.status, await r.json()]).toEqual([401, { message: 'Unauthenticated: the management API is disabled (no auth token configured)' }]);
      }
    } finally {
      await bare.close();
    }
  });
});
