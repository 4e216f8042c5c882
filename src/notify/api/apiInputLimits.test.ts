// Out-of-range numbers and text that may not be stored are refused by every management endpoint
// with a 400 naming the field (real HTTP, real SQLite, the follower's backfill route mounted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { createFollowerRoutes } from '../follow/backfillRoute.js';
import { notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { startRouteServer, type RouteServer } from '../testing/startRouteServer.js';
import { createWebhooksApi } from './webhooksApi.js';
import { unsafeTextProblem } from '../../http/api/unsafeText.js';

const TOKEN = 'test-auth-token-0123456789';
const A1 = '0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c';
const NFT = '0x57f1887a8bf19b14fc0df6fd9b2acc9af147ea85';
const URL_OK = 'https://93.184.216.34/hook';

describe('management API input limits', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier;
  let server: RouteServer;
  beforeAll(async () => {
    ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
    notifier = createNotifier({ db });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN, networks: ['ETH_MAINNET'], extraRoutes: createFollowerRoutes }));
  });
  afterAll(async () => {
    await server.close();
    await notifier.stop();
    await cleanup();
  });

  /** Sends the body as raw JSON text, so lone surrogates (`\ud800`) reach the server as written. */
  async function call(method: string, path: string, rawBody?: string): Promise<string> {
    const res = await fetch(`${server.url}${path}`, { method, headers: { 'Content-Type': 'application/json', 'X-Service-Token': TOKEN }, body: rawBody });
    const body = (await res.json()) as { message?: string; field?: string };
    return `${res.status} ${body.field ?? '-'} ${body.message ?? JSON.stringify(body)}`;
  }
  const create = (fields: string) => call('POST', '/create-webhook', `{"network":"ETH_MAINNET","webhook_type":"ADDRESS_ACTIVITY","webhook_url":"${URL_OK}","addresses":["${A1}"],${fields}}`);

  it('error: numbers beyond their range are 400 naming the field, never 500', async () => {
    const w = JSON.parse((await create('"name":"ok"')).slice(6)) as { data: { id: string } };
    const id = w.data.id;
    expect([
      await create('"from_block":"18446744073709551616"'),
      await create('"from_block":"0x10000000000000000"'),
      await create('"from_block":"9223372036854775808"'),
      await create('"from_block":1e400'),
      await create('"from_block":18446744073709551616'),
      await call('POST', '/backfill-webhook', `{"webhook_id":"${id}","from_block":"0xffffffffffffffffffff"}`),
      await call('POST', '/create-webhook', `{"network":"ETH_MAINNET","webhook_type":"NFT_ACTIVITY","webhook_url":"${URL_OK}","nft_filters":[{"contract_address":"${NFT}","token_id":"${'9'.repeat(78)}"}]}`),
      await call('POST', '/rotate-webhook-signing-key', `{"webhook_id":"${id}","grace_period_sec":1e300}`),
      await call('POST', '/replay-failed-webhook-events', `{"webhook_id":"${id}","since":1e300}`),
    ]).toMatchInlineSnapshot(`
      [
        "400 from_block from_block: must be at most 9223372036854775807 (2^63 - 1)",
        "400 from_block from_block: must be at most 9223372036854775807 (2^63 - 1)",
        "400 from_block from_block: must be at most 9223372036854775807 (2^63 - 1)",
        "400 from_block from_block: must be a block number (integer, decimal or 0x hex string)",
        "400 from_block from_block: must be a block number (integer, decimal or 0x hex string)",
        "400 from_block from_block: must be at most 9223372036854775807 (2^63 - 1)",
        "400 nft_filters[0].token_id nft_filters[0].token_id: must be at most 2^256 - 1",
        "400 grace_period_sec grace_period_sec: must be a whole number of seconds",
        "400 since since: must be an RFC 3339 time or milliseconds since the epoch",
      ]
    `);
    // The largest storable block number is accepted.
    expect((await create('"from_block":"9223372036854775807"')).slice(0, 3)).toBe('200');
  });

  it('error: control characters and lone surrogates are refused in every string field', async () => {
    const w = JSON.parse((await create('"name":"ok"')).slice(6)) as { data: { id: string } };
    const id = w.data.id;
    expect([
      await create('"name":"a\\u0000b"'),
      await create('"name":"bell\\u0007"'),
      await create('"name":"del\\u007f"'),
      await create('"name":"c1\\u0085"'),
      await create('"name":"tab\\tname"'),
      await create('"name":"half \\ud800 pair"'),
      await create('"name":"low \\udc00"'),
      await create('"app_id":"x\\u0000"'),
      await call('POST', '/create-webhook', `{"network":"ETH_MAINNET\\u0000","webhook_type":"ADDRESS_ACTIVITY","webhook_url":"${URL_OK}","addresses":["${A1}"]}`),
      await call('POST', '/create-webhook', `{"network":"ETH_MAINNET","webhook_type":"ADDRESS_ACTIVITY","webhook_url":"${URL_OK}\\u0000","addresses":["${A1}"]}`),
      await call('POST', '/create-webhook', `{"network":"ETH_MAINNET","webhook_type":"ADDRESS_ACTIVITY","webhook_url":"${URL_OK}/\\ud83d","addresses":["${A1}"]}`),
      await call('POST', '/create-webhook', `{"network":"ETH_MAINNET","webhook_type":"GRAPHQL","webhook_url":"${URL_OK}","graphql_query":{"query":"{ block { hash } }\\u0000"}}`),
      await call('PUT', '/update-webhook', `{"webhook_id":"${id}","name":"x\\u001b[31m"}`),
      await call('PUT', '/update-webhook', `{"webhook_id":"${id}","webhook_url":"${URL_OK}\\r\\nX-Injected: 1"}`),
      await call('PATCH', '/update-webhook-addresses', `{"webhook_id":"${id}","addresses_to_add":["${A1}\\u0000"]}`),
      await call('POST', '/replay-webhook-event', `{"webhook_id":"${id}","event_id":"whevt_\\u0000"}`),
      await call('GET', `/webhook-deliveries?webhook_id=${id}%00`),
    ]).toMatchInlineSnapshot(`
      [
        "400 name name: must not contain control characters (U+0000)",
        "400 name name: must not contain control characters (U+0007)",
        "400 name name: must not contain control characters (U+007F)",
        "400 name name: must not contain control characters (U+0085)",
        "400 name name: must not contain control characters (U+0009)",
        "400 name name: must not contain lone UTF-16 surrogates",
        "400 name name: must not contain lone UTF-16 surrogates",
        "400 app_id app_id: must not contain control characters (U+0000)",
        "400 network network: must not contain control characters (U+0000)",
        "400 webhook_url webhook_url: must not contain control characters (U+0000)",
        "400 webhook_url webhook_url: must not contain lone UTF-16 surrogates",
        "400 graphql_query.query graphql_query.query: must not contain control characters (U+0000)",
        "400 name name: must not contain control characters (U+001B)",
        "400 webhook_url webhook_url: must not contain control characters (U+000D)",
        "400 addresses_to_add[0] addresses_to_add[0]: must not contain control characters (U+0000)",
        "400 event_id event_id: must not contain control characters (U+0000)",
        "400 webhook_id webhook_id: must not contain control characters (U+0000)",
      ]
    `);
    // Nothing was stored with such text; a query's line breaks and tabs are ordinary source text, and
    // a well-formed surrogate pair (an emoji) is fine.
    expect((await call('POST', '/create-webhook', `{"network":"ETH_MAINNET","webhook_type":"GRAPHQL","webhook_url":"${URL_OK}","graphql_query":"{\\n\\tblock { hash }\\r\\n}"}`)).slice(0, 3)).toBe('200');
    expect((await create('"name":"rocket \\ud83d\\ude80"')).slice(0, 3)).toBe('200');
    const names = (await db.query<{ name: string | null; url: string }>('SELECT name, url FROM webhooks')).map((r) => `${r.name} ${r.url}`);
    expect(names.filter((n) => unsafeTextProblem(n) !== null)).toEqual([]);
  });
});
