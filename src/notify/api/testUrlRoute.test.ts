// Test Webhook over real HTTP: a signed test notification sent now to a real listener, its status,
// latency and answer reported; a 500, a closed port and a URL the policy refuses (real SQLite).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { signatureHex } from '../deliver/signNotification.js';
import { notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { startRouteServer, type RouteServer } from '../testing/startRouteServer.js';
import { startTestListener, type TestListener } from '../testing/testListener.js';
import { freePort } from '../../testing/startAnvil.js';
import { createWebhooksApi } from './webhooksApi.js';

const TOKEN = 'test-auth-token-0123456789';

describe('POST /test-webhook-url', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier;
  let strictNotifier: Notifier;
  let server: RouteServer;
  let strict: RouteServer;
  let ok: TestListener;
  let failing: TestListener;
  beforeAll(async () => {
    ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
    notifier = createNotifier({ db });
    strictNotifier = createNotifier({ db, allowLoopbackUrls: false });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN }));
    strict = await startRouteServer(createWebhooksApi({ db, notifier: strictNotifier, authToken: TOKEN }));
    ok = await startTestListener(() => ({ status: 200, body: 'thanks, listener here' }));
    failing = await startTestListener(() => ({ status: 500, body: 'database down' }));
  });
  afterAll(async () => {
    await Promise.all([server.close(), strict.close(), ok.close(), failing.close()]);
    await notifier.stop();
    await strictNotifier.stop();
    await cleanup();
  });

  async function call(base: string, path: string, body: unknown) {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Service-Token': TOKEN }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as { data: Record<string, unknown>; message?: string; field?: string } };
  }

  it("default: a saved webhook's test goes to the URL in the form, signed with the webhook's key, and reports status, latency and answer; nothing is queued", async () => {
    const created = await call(server.url, '/create-webhook', { network: 'ETH_MAINNET', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: 'https://93.184.216.34/h', addresses: ['0x00000000000000000000000000000000000000a1'] });
    const id = created.json.data.id as string;
    const key = created.json.data.signing_key as string;
    const r = await call(server.url, '/test-webhook-url', { webhook_url: ok.url, webhook_id: id });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ status_code: 200, response_body: 'thanks, listener here', error: null, signed_with: 'webhook' });
    expect(r.json.data.latency_ms).toEqual(expect.any(Number));
    const received = ok.requests.at(-1)!;
    // A realistic sample about the webhook's own address: ETH in, a token out, with the token's log.
    expect(JSON.parse(received.body)).toMatchObject({
      webhookId: id,
      type: 'ADDRESS_ACTIVITY',
      event: {
        network: 'ETH_MAINNET',
        test: true,
        activity: [
          { toAddress: '0x00000000000000000000000000000000000000a1', category: 'external', asset: 'ETH', value: 1.5, log: null },
          { fromAddress: '0x00000000000000000000000000000000000000a1', category: 'token', asset: 'USDC', value: 25.5, log: { topics: [expect.any(String), expect.stringMatching(/a1$/), expect.any(String)] } },
        ],
      },
    });
    expect(received.headers['x-service-signature']).toBe(signatureHex(received.raw, key));
    expect(received.headers['webhook-id']).toMatch(/^whevt_/);
    const events = await fetch(`${server.url}/webhook-events?webhook_id=${id}`, { headers: { 'X-Service-Token': TOKEN } });
    expect(((await events.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('behavior: an unsaved form is tested with a one-off key and the type chosen', async () => {
    const r = await call(server.url, '/test-webhook-url', { webhook_url: ok.url, webhook_type: 'GRAPHQL' });
    expect(r.json.data).toMatchObject({ status_code: 200, signed_with: 'one-off key' });
    expect(JSON.parse(ok.requests.at(-1)!.body)).toMatchObject({ type: 'GRAPHQL', event: { test: true, sequenceNumber: '0', data: { block: { hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), number: expect.any(Number) } } } });
  });

  it("error: a listener answering 500, a closed port: the answer says what happened (status and body, or the connection error)", async () => {
    expect((await call(server.url, '/test-webhook-url', { webhook_url: failing.url })).json.data).toMatchObject({ status_code: 500, response_body: 'database down', error: null });
    const closed = await call(server.url, '/test-webhook-url', { webhook_url: `http://127.0.0.1:${await freePort()}/hook` });
    expect(closed.json.data).toMatchObject({ status_code: null, response_body: null, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('error: a listener slower than the attempt deadline (the notifier\'s, --webhook-timeout-ms) is reported as timed out', async () => {
    const quick = createNotifier({ db, fetchTimeoutMs: 300 });
    const slow = await startTestListener(() => ({ status: 200, delayMs: 2_000 }));
    const quickServer = await startRouteServer(createWebhooksApi({ db, notifier: quick, authToken: TOKEN }));
    try {
      const started = Date.now();
      const r = await call(quickServer.url, '/test-webhook-url', { webhook_url: slow.url });
      expect(r.json.data).toMatchObject({ status_code: null, response_body: null, error: 'timed out after 300 ms' });
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await Promise.all([quickServer.close(), slow.close(), quick.stop()]);
    }
  });

  it('error: the URL policy applies as for real deliveries (loopback refused in production mode), and an unknown webhook is a 404; no request is sent', async () => {
    const before = ok.requests.length;
    const refused = await call(strict.url, '/test-webhook-url', { webhook_url: ok.url });
    expect(refused.status).toBe(400);
    expect(refused.json.field).toBe('webhook_url');
    expect(refused.json.message).toMatch(/^webhook_url: /);
    expect((await call(server.url, '/test-webhook-url', { webhook_url: ok.url, webhook_id: 'wh_nope' })).status).toBe(404);
    expect((await call(server.url, '/test-webhook-url', { webhook_url: 'not a url' })).status).toBe(400);
    expect(ok.requests.length).toBe(before);
  });
});

describe('POST /validate-graphql-query', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier;
  let server: RouteServer;
  beforeAll(async () => {
    ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
    notifier = createNotifier({ db });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN }));
  });
  afterAll(async () => {
    await server.close();
    await notifier.stop();
    await cleanup();
  });
  const check = async (graphql_query: unknown) => {
    const res = await fetch(`${server.url}/validate-graphql-query`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Service-Token': TOKEN }, body: JSON.stringify({ graphql_query }) });
    return { status: res.status, json: (await res.json()) as unknown };
  };

  it('default: a query the schema accepts is valid; unknown fields, bad syntax and empty queries are 400s naming graphql_query, as create-webhook says', async () => {
    expect(await check('{ block { number hash } }')).toEqual({ status: 200, json: { data: { valid: true } } });
    expect(await check('{ block { nope } }')).toEqual({ status: 400, json: { field: 'graphql_query', message: expect.stringMatching(/^graphql_query: Cannot query field "nope" on type "Block"/) } });
    expect(await check('{ block { number ')).toMatchObject({ status: 400, json: { field: 'graphql_query', message: expect.stringMatching(/Syntax Error/) } });
    expect(await check('  ')).toMatchObject({ status: 400, json: { field: 'graphql_query' } });
    const created = await fetch(`${server.url}/create-webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Service-Token': TOKEN }, body: JSON.stringify({ network: 'ETH_MAINNET', webhook_type: 'GRAPHQL', webhook_url: 'https://93.184.216.34/h', graphql_query: '{ block { nope } }' }) });
    expect(((await created.json()) as { message: string }).message).toBe(((await check('{ block { nope } }')).json as { message: string }).message);
  });
});
