import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier, type NotifierOptions } from '../createNotifier.js';
import { notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { startRouteServer, type RouteServer } from '../testing/startRouteServer.js';
import { startTestListener, type TestListener } from '../testing/testListener.js';
import type { WebhookTier } from '../webhooks/webhookTypes.js';
import { z } from 'zod';
import { createWebhooksApi, isWebhooksApiPath } from './webhooksApi.js';
import { defineRoute } from './apiRoute.js';
import { loadWebhook } from './apiQuery.js';

const TOKEN = 'test-auth-token-0123456789';
const A1 = '0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c';
const A2 = '0x00000000000000000000000000000000000000a2';
const NFT = '0x57f1887a8bf19b14fc0df6fd9b2acc9af147ea85';

interface Reply {
  status: number;
  body: Record<string, unknown> & { data?: unknown; message?: string; field?: string };
}

describe('webhooks API (sqlite)', () => {
  const impl = notifyTestDatabases.find((d) => d.name === 'sqlite')!;
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let server: RouteServer;
  let notifier: Notifier;
  let listener: TestListener;

  async function boot(tier: WebhookTier = 'enterprise', notifierOptions: Partial<NotifierOptions> = {}) {
    await server?.close();
    await notifier?.stop();
    notifier = createNotifier({ db, tier, pollIntervalMs: 20, retryBaseDelayMs: 20, retryMaxDelayMs: 40, ...notifierOptions });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN, networks: ['ETH_MAINNET', 'ETH_SEPOLIA'] }));
  }
  beforeEach(async () => {
    ({ db, cleanup } = await impl.open());
    listener = await startTestListener(() => 200);
    await boot();
  });
  afterEach(async () => {
    await notifier.stop();
    await server.close();
    await listener.close();
    await cleanup();
  });

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = { 'X-Service-Token': TOKEN }): Promise<Reply> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Reply['body'] };
  }
  const create = (overrides: Record<string, unknown> = {}) =>
    call('POST', '/create-webhook', { network: 'ETH_MAINNET', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listener.url, addresses: [A1], ...overrides });
  const created = async (overrides: Record<string, unknown> = {}) => {
    const r = await create(overrides);
    expect(r.status).toBe(200);
    return r.body.data as Record<string, unknown> & { id: string; signing_key: string };
  };

  it('default: create, list, update, delete in the provider\'s wire format', async () => {
    const w = await created({ name: 'treasury' });
    expect(w).toMatchObject({ network: 'ETH_MAINNET', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listener.url, is_active: true, version: 'V2', name: 'treasury' });
    expect(w.id).toMatch(/^wh_[a-z2-7]{16}$/);
    expect(w.signing_key).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(typeof w.time_created).toBe('number');
    const list = await call('GET', '/team-webhooks');
    expect((list.body.data as Array<{ id: string }>).map((x) => x.id)).toEqual([w.id]);
    const off = await call('PUT', '/update-webhook', { webhook_id: w.id, is_active: false, name: 'renamed' });
    expect(off.body.data).toMatchObject({ id: w.id, is_active: false, name: 'renamed' });
    expect(await call('DELETE', `/delete-webhook?webhook_id=${w.id}`)).toEqual({ status: 200, body: {} });
    expect((await call('GET', '/team-webhooks')).body.data).toEqual([]);
  });

  it('behavior: network matches a served name case-insensitively and with - for _, and is stored as configured', async () => {
    for (const spelling of ['eth-sepolia', 'Eth_Sepolia', 'ETH_SEPOLIA']) expect(await created({ network: spelling })).toMatchObject({ network: 'ETH_SEPOLIA' });
  });

  it('behavior: without network, a service with exactly one network uses it', async () => {
    const single = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN, networks: ['LOCAL'] }));
    try {
      const res = await fetch(`${single.url}/create-webhook`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Service-Token': TOKEN },
        body: JSON.stringify({ webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listener.url, addresses: [A1] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown }).data).toMatchObject({ network: 'LOCAL' });
    } finally {
      await single.close();
    }
  });

  it('error: a missing or wrong token is 401; X-Alchemy-Token is accepted', async () => {
    expect((await call('GET', '/team-webhooks', undefined, {})).status).toBe(401);
    expect((await call('GET', '/team-webhooks', undefined, { 'X-Service-Token': `${TOKEN}x` })).status).toBe(401);
    expect((await call('GET', '/team-webhooks', undefined, { 'X-Alchemy-Token': TOKEN })).status).toBe(200);
  });

  it('error: invalid input is 400 with a message naming the field', async () => {
    const cases: Array<Record<string, unknown> | string> = [
      { webhook_url: 'not a url' },
      { webhook_url: 'ftp://example.com/x' },
      { webhook_type: 'MINED_TRANSACTION' },
      { network: 'ETH_GOERLI' },
      { network: undefined },
      { network: 7 },
      { addresses: [] },
      { addresses: [A1, '0x1234'] },
      { webhook_type: 'NFT_ACTIVITY', addresses: undefined, nft_filters: [] },
      { webhook_type: 'NFT_ACTIVITY', addresses: undefined, nft_filters: [{ contract_address: NFT, token_id: 'one' }] },
      { webhook_type: 'GRAPHQL', addresses: undefined, graphql_query: '{ block { hash ' },
      { webhook_type: 'GRAPHQL', addresses: undefined, graphql_query: '{ block { nope } }' },
      { webhook_type: 'GRAPHQL', graphql_query: '{ block { hash } }' },
      { webhook_url: undefined },
      '[1, 2]',
      '{"network": ',
    ];
    const replies = [];
    for (const c of cases) {
      const r = typeof c === 'string' ? await call('POST', '/create-webhook', c) : await create(c);
      replies.push(`${r.status} ${r.body.message}`);
    }
    expect(replies).toMatchInlineSnapshot(`
      [
        "400 webhook_url: is not a valid absolute URL",
        "400 webhook_url: must use http or https",
        "400 webhook_type: must be one of ADDRESS_ACTIVITY, NFT_ACTIVITY, GRAPHQL",
        "400 network: unknown network "ETH_GOERLI"; this service serves ETH_MAINNET, ETH_SEPOLIA",
        "400 network: is required: this service serves ETH_MAINNET, ETH_SEPOLIA",
        "400 network: must be a string",
        "400 addresses: must not be empty for ADDRESS_ACTIVITY webhooks",
        "400 addresses[1]: must be a 20-byte hex address (0x + 40 hex digits)",
        "400 nft_filters: must not be empty for NFT_ACTIVITY webhooks",
        "400 nft_filters[0].token_id: must be a decimal or 0x-prefixed hex token id",
        "400 graphql_query: Syntax Error: Expected Name, found <EOF>.",
        "400 graphql_query: Cannot query field "nope" on type "Block". Did you mean "nonce"?",
        "400 addresses: only ADDRESS_ACTIVITY webhooks take addresses",
        "400 webhook_url: is required",
        "400 body: must be a JSON object",
        "400 body: is not valid JSON",
      ]
    `);
    const w = await created();
    expect((await call('GET', `/webhook-addresses?webhook_id=${w.id}&limit=0`)).body).toEqual({ message: 'limit: must be an integer from 1 to 1000', field: 'limit' });
    expect((await call('PATCH', '/update-webhook-nft-filters', { webhook_id: w.id, nft_filters_to_add: [{ contract_address: NFT }] })).body.message).toBe(
      `webhook_id: webhook ${w.id} is a ADDRESS_ACTIVITY webhook; this applies to NFT_ACTIVITY webhooks`,
    );
  });

  it('error: unknown ids are 404, unknown endpoints 404, wrong methods 405', async () => {
    expect(await call('PUT', '/update-webhook', { webhook_id: 'wh_nope', is_active: true })).toEqual({ status: 404, body: { message: 'webhook_id: no webhook wh_nope', field: 'webhook_id' } });
    expect((await call('DELETE', '/delete-webhook?webhook_id=wh_nope')).status).toBe(404);
    expect((await call('GET', '/webhook-addresses?webhook_id=wh_nope')).status).toBe(404);
    expect((await call('POST', '/replay-webhook-event', { webhook_id: 'wh_nope', event_id: 'whevt_x' })).status).toBe(404);
    expect((await call('GET', '/no-such-thing')).status).toBe(404);
    const r = await fetch(`${server.url}/team-webhooks`, { method: 'POST', headers: { 'X-Service-Token': TOKEN } });
    expect([r.status, r.headers.get('allow')]).toEqual([405, 'GET']);
  });

  it('error: production mode refuses URLs reaching loopback, private or metadata addresses', async () => {
    await boot('enterprise', { allowLoopbackUrls: false });
    const messages = [];
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://10.0.0.5/x', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/']) {
      const r = await create({ webhook_url: url });
      messages.push(`${r.status} ${r.body.message}`);
    }
    expect(messages.every((m) => m.startsWith('400 webhook_url: host '))).toBe(true);
    expect(messages[3]).toBe('400 webhook_url: host 169.254.169.254 is a cloud metadata address (169.254.169.254); refused unless allow-listed');
    const w = await created({ webhook_url: 'https://93.184.216.34/hook' });
    expect((await call('PUT', '/update-webhook', { webhook_id: w.id, webhook_url: 'http://192.168.1.10/x' })).status).toBe(400);
  });

  it('behavior: the tier limits the number of webhooks', async () => {
    await boot('free');
    for (let i = 0; i < 5; i++) await created();
    expect(await create()).toEqual({ status: 403, body: { message: 'webhook limit reached: the free tier allows 5 webhooks' } });
  });

  it('behavior: addresses are added, removed, replaced and listed with cursor pagination', async () => {
    const w = await created();
    const many = Array.from({ length: 250 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    expect(await call('PATCH', '/update-webhook-addresses', { webhook_id: w.id, addresses_to_add: many, addresses_to_remove: [A1] })).toEqual({ status: 200, body: {} });
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await call('GET', `/webhook-addresses?webhook_id=${w.id}&limit=100${after ? `&after=${after}` : ''}`);
      seen.push(...(page.body.data as string[]));
      expect((page.body.pagination as { total_count: number }).total_count).toBe(250);
      after = (page.body.pagination as { cursors: { after?: string } }).cursors.after;
    } while (after);
    expect(seen).toEqual(many);
    await call('PUT', '/update-webhook-addresses', { webhook_id: w.id, addresses: [A2, A1] });
    expect((await call('GET', `/webhook-addresses?webhook_id=${w.id}`)).body).toEqual({ data: [A2, A1.toLowerCase()], pagination: { cursors: {}, total_count: 2 } });
    expect((await call('PUT', '/update-webhook-addresses', { webhook_id: w.id, addresses: [] })).body.message).toBe('addresses: must not be empty');
  });

  it('behavior: from_block on create records the backfill in the creating transaction', async () => {
    const w = await created({ from_block: '0x5' });
    expect(await db.query('SELECT webhook_id, replay_from FROM follower_webhooks')).toEqual([{ webhook_id: w.id, replay_from: 5 }]);
    expect((await create({ from_block: 'yesterday' })).body.message).toBe('from_block: must be a block number (integer, decimal or 0x hex string)');
    expect(await db.query('SELECT COUNT(*) AS n FROM webhooks')).toEqual([{ n: 1 }]);
  });

  it('error: one request adds at most 100,000 addresses (a webhook holds up to 1,000,000)', async () => {
    const w = await created();
    const tooMany = Array.from({ length: 100_001 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    const reply = await call('PATCH', '/update-webhook-addresses', { webhook_id: w.id, addresses_to_add: tooMany });
    expect(reply).toEqual({ status: 400, body: expect.objectContaining({ message: 'addresses_to_add: must hold at most 100000 addresses' }) });
  });

  it('behavior: NFT filters and GraphQL queries are stored and read back', async () => {
    const nft = await created({ webhook_type: 'NFT_ACTIVITY', addresses: undefined, nft_filters: [{ contract_address: NFT, token_id: '0x10' }] });
    const everyNft = await created({ webhook_type: 'NFT_ACTIVITY', addresses: undefined, nft_filters: [{ contract_address: '*' }] });
    expect((await call('GET', `/webhook-nft-filters?webhook_id=${everyNft.id}`)).body.data).toEqual([{ contract_address: '*' }]);
    await call('PATCH', '/update-webhook-nft-filters', { webhook_id: nft.id, nft_filters_to_add: [{ contract_address: A2 }], nft_filters_to_remove: [{ contract_address: NFT, token_id: '16' }] });
    expect((await call('GET', `/webhook-nft-filters?webhook_id=${nft.id}`)).body).toEqual({ data: [{ contract_address: A2 }], pagination: { cursors: {}, total_count: 1 } });
    const gql = await created({ webhook_type: 'GRAPHQL', addresses: undefined, graphql_query: { query: '{ block { hash } }', skip_empty_messages: true } });
    expect((await call('GET', `/dashboard-webhook-graphql-query?webhook_id=${gql.id}`)).body.data).toEqual({ graphql_query: '{ block { hash } }', skip_empty_messages: true });
  });

  it('behavior: a test notification is delivered, logged, and can be replayed with the same id', async () => {
    notifier.start();
    const w = await created();
    const sent = await call('POST', '/send-test-webhook', { webhook_id: w.id });
    const eventId = (sent.body.data as { event_id: string }).event_id;
    await listener.waitFor((rs) => rs.length === 1);
    const notification = JSON.parse(listener.requests[0]!.body) as { id: string; event: { test: boolean } };
    expect([notification.id, notification.event.test]).toEqual([eventId, true]);
    // The listener has answered; the attempt is recorded just after.
    let log = await call('GET', `/webhook-deliveries?webhook_id=${w.id}`);
    for (let i = 0; i < 100 && (log.body.data as unknown[]).length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      log = await call('GET', `/webhook-deliveries?webhook_id=${w.id}`);
    }
    expect(log.body.data).toMatchObject([{ event_id: eventId, status_code: 200, response_body: 'ok', first_attempt: true, outcome: 'succeeded' }]);
    // The log's request headers are those the listener received, signature included.
    const headers = (log.body.data as { request_headers: Record<string, string> }[])[0]!.request_headers;
    expect(Object.keys(headers)).toEqual(expect.arrayContaining(['Content-Type', 'User-Agent', 'X-Service-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']));
    for (const [name, value] of Object.entries(headers)) expect([name, listener.requests[0]!.headers[name.toLowerCase()]]).toEqual([name, value]);
    expect(headers['X-Service-Signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(headers)).not.toContain(w.signing_key);
    expect(await call('POST', '/replay-webhook-event', { webhook_id: w.id, event_id: eventId })).toEqual({ status: 200, body: { data: { event_id: eventId, status: 'replayed' } } });
    await listener.waitFor((rs) => rs.length === 2);
    expect(listener.requests[1]!.body).toBe(listener.requests[0]!.body);
    let event = await call('GET', `/webhook-event?webhook_id=${w.id}&event_id=${eventId}`);
    for (let i = 0; i < 100 && (event.body.data as { attempts: number }).attempts < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
      event = await call('GET', `/webhook-event?webhook_id=${w.id}&event_id=${eventId}`);
    }
    expect(event.body.data).toMatchObject({ event_id: eventId, status: 'succeeded', attempts: 2, body: listener.requests[0]!.body });
  });

  it('behavior: a delivered event past the retention is pruned; lookup and replay say 404 naming event_id and the retention', async () => {
    await boot('enterprise', { retention: { deliveredMs: 1, deadLetterMs: 86_400_000 }, retentionIntervalMs: 20 });
    notifier.start();
    const w = await created();
    const eventId = ((await call('POST', '/send-test-webhook', { webhook_id: w.id })).body.data as { event_id: string }).event_id;
    await listener.waitFor((rs) => rs.length === 1);
    let events = await call('GET', `/webhook-events?webhook_id=${w.id}`);
    for (let i = 0; i < 300 && (events.body.data as unknown[]).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      events = await call('GET', `/webhook-events?webhook_id=${w.id}`);
    }
    expect(events.body.data).toEqual([]);
    expect((await call('GET', `/webhook-deliveries?webhook_id=${w.id}`)).body.data).toEqual([]);
    const message = `event_id: no event ${eventId} on webhook ${w.id} (delivered events are kept 0.001 s, failed ones 1 day)`;
    expect(await call('GET', `/webhook-event?webhook_id=${w.id}&event_id=${eventId}`)).toEqual({ status: 404, body: { message, field: 'event_id' } });
    expect(await call('POST', '/replay-webhook-event', { webhook_id: w.id, event_id: eventId })).toEqual({ status: 404, body: { message, field: 'event_id' } });
    expect(listener.requests).toHaveLength(1);
  });

  it('behavior: failed events are listed and replayed since a time; pause holds and resume releases deliveries', async () => {
    await boot('enterprise', { retryWindowMs: 100 });
    let healthy = false;
    const failing = await startTestListener(() => (healthy ? 200 : 500));
    try {
      notifier.start();
      const w = await created({ webhook_url: failing.url });
      const first = await call('POST', '/send-test-webhook', { webhook_id: w.id });
      const eventId = (first.body.data as { event_id: string }).event_id;
      for (let i = 0; i < 100; i++) {
        const failed = await call('GET', `/webhook-events?webhook_id=${w.id}&status=failed`);
        if ((failed.body.data as unknown[]).length === 1) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await call('GET', `/webhook-events?webhook_id=${w.id}&status=failed`)).body.data).toMatchObject([{ event_id: eventId, status: 'failed', last_status_code: 500 }]);
      expect((await call('POST', '/pause-webhook', { webhook_id: w.id })).body.data).toMatchObject({ is_active: false, paused_reason: 'manual' });
      expect((await call('POST', '/replay-failed-webhook-events', { webhook_id: w.id, since: '2000-01-01T00:00:00Z' })).body.data).toEqual({ replayed: 1 });
      healthy = true;
      const countPaused = failing.requests.length;
      await new Promise((r) => setTimeout(r, 150));
      expect(failing.requests.length).toBe(countPaused);
      expect((await call('POST', '/resume-webhook', { webhook_id: w.id })).body.data).toMatchObject({ is_active: true, paused_reason: null });
      await failing.waitFor((rs) => rs.some((r) => r.status === 200));
      expect(JSON.parse(failing.requests.find((r) => r.status === 200)!.body).id).toBe(eventId);
      expect((await call('POST', '/replay-failed-webhook-events', { webhook_id: w.id, since: 'yesterday' })).body.message).toBe(
        'since: must be an RFC 3339 time or milliseconds since the epoch',
      );
    } finally {
      await failing.close();
    }
  });

  it('behavior: rotating the signing key returns the new key and the grace period end', async () => {
    const w = await created();
    const r = await call('POST', '/rotate-webhook-signing-key', { webhook_id: w.id, grace_period_sec: 3600 });
    const data = r.body.data as { signing_key: string; previous_signing_key_expires_at: number };
    expect(data.signing_key).not.toBe(w.signing_key);
    expect(data.previous_signing_key_expires_at - Date.now()).toBeGreaterThan(3_500_000);
    expect((await call('POST', '/rotate-webhook-signing-key', { webhook_id: w.id, grace_period_sec: -1 })).body.message).toBe(
      'grace_period_sec: must be between 0 and 604800 (7 days)',
    );
  });

  it('default: the OpenAPI document is public and describes every endpoint', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string; requestBody?: unknown }>> };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations).toEqual(expect.arrayContaining(['POST /create-webhook', 'GET /team-webhooks', 'PUT /update-webhook', 'DELETE /delete-webhook', 'PATCH /update-webhook-addresses', 'PUT /update-webhook-addresses', 'GET /webhook-addresses', 'PATCH /update-webhook-nft-filters', 'GET /webhook-nft-filters', 'GET /webhook-deliveries', 'POST /replay-webhook-event', 'POST /replay-failed-webhook-events', 'POST /send-test-webhook', 'POST /rotate-webhook-signing-key', 'POST /pause-webhook', 'POST /resume-webhook', 'GET /openapi.json']));
    const attempts = doc.paths['/webhook-deliveries']!.get! as unknown as { responses: Record<string, { content: Record<string, { schema: { properties: { data: { items: { properties: Record<string, unknown> } } } } }> }> };
    expect(attempts.responses['200']!.content['application/json']!.schema.properties.data.items.properties.request_headers).toMatchObject({ type: ['object', 'null'], additionalProperties: { type: 'string' } });
    expect(doc.paths['/create-webhook']!.post!.requestBody).toMatchObject({ content: { 'application/json': { schema: { required: ['webhook_type', 'webhook_url'] } } } });
  });

  it('args: extra routes share the prefix, token, validation and OpenAPI document', async () => {
    await server.close();
    const api = createWebhooksApi({
      db,
      notifier,
      authToken: TOKEN,
      extraRoutes: (deps) => [
        defineRoute({
          method: 'POST',
          path: '/backfill-webhook',
          operationId: 'backfill-webhook',
          summary: 'test route',
          tag: 'Deliveries',
          body: z.object({ webhook_id: z.string(), from_block: z.number({ error: 'must be a block number' }) }),
          response: { type: 'object' },
          async handle({ body }) {
            const w = await loadWebhook(deps.repo, body.webhook_id);
            return { data: { id: w.id, from: body.from_block } };
          },
        }),
      ],
    });
    server = await startRouteServer(api);
    const w = await created();
    expect(await call('POST', '/backfill-webhook', { webhook_id: w.id, from_block: 7 })).toEqual({ status: 200, body: { data: { id: w.id, from: 7 } } });
    expect((await call('POST', '/backfill-webhook', { webhook_id: w.id, from_block: 'x' })).body.message).toBe('from_block: must be a block number');
    expect((await call('POST', '/backfill-webhook', { webhook_id: w.id }, {})).status).toBe(401);
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(doc.paths['/backfill-webhook']).toBeDefined();
  });

  it('args: the API owns /api/* except the keys API', () => {
    expect(['/api/create-webhook', '/api/openapi.json', '/api/keysmith', '/api/keys', '/api/keys/k1', '/v2/x'].map((p) => isWebhooksApiPath(p))).toEqual([true, true, true, false, false, false]);
  });
});
