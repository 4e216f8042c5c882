// Hostile input to the management API beyond the front door (issue 18): fast-check bodies with wrong
// types, unicode and deep nesting, 200,000-address bodies, huge URLs, SSRF spellings of loopback and
// names that resolve to it, and a listener that redirects to an internal address. Real HTTP, real
// SQLite, the production URL policy (no loopback): every answer is a 4xx naming the field (or a 2xx
// for a valid body), never a 5xx or a crash, and memory stays bounded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { startRouteServer, type RouteServer } from '../testing/startRouteServer.js';
import { createWebhooksApi } from './webhooksApi.js';
import { unsafeTextProblem } from '../../http/api/unsafeText.js';

const TOKEN = 'test-auth-token-0123456789';
const A1 = '0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c';
const URL_OK = 'https://93.184.216.34/hook';
/** Names the test's resolver maps to loopback (what a hostile DNS zone would answer). */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.', 'rebind.example.test', 'rebind.example.test.']);

interface Answer {
  status: number;
  field?: string;
  message?: string;
  data?: unknown;
}

describe('management API under hostile input (production URL policy)', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier;
  let server: RouteServer;
  beforeAll(async () => {
    ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
    notifier = createNotifier({
      db,
      allowLoopbackUrls: false,
      // The allow-list lets this test's own redirecting listener be reached; everything else is judged.
      allowList: ['redirector.test'],
      resolve: async (host) => {
        const h = host.toLowerCase();
        if (LOOPBACK_NAMES.has(h) || h === 'redirector.test') return [{ address: '127.0.0.1', family: 4 }];
        if (h === 'dual.example.test') return [{ address: '93.184.216.34', family: 4 }, { address: '::1', family: 6 }];
        throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN, networks: ['ETH_MAINNET'] }));
  });
  afterAll(async () => {
    await server.close();
    await notifier.stop();
    await cleanup();
  });

  async function post(path: string, body: string): Promise<Answer> {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Service-Token': TOKEN }, body });
    const text = await res.text();
    let parsed: Omit<Answer, 'status'> = {};
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      parsed = { message: `not JSON: ${text.slice(0, 80)}` };
    }
    return { status: res.status, ...parsed };
  }
  const valid = { network: 'ETH_MAINNET', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: URL_OK, addresses: [A1] };
  const create = (fields: Record<string, unknown>) => post('/create-webhook', JSON.stringify({ ...valid, ...fields }));

  it('error: any JSON value in any field of create-webhook is a 2xx or a 4xx naming that field, never a 5xx', async () => {
    const fields = ['network', 'webhook_type', 'webhook_url', 'addresses', 'name', 'from_block'] as const;
    const seen: number[] = [];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue({ maxDepth: 4 }), async (field, value) => {
        const answer = await create({ [field]: value });
        seen.push(answer.status);
        expect(answer.status, JSON.stringify(answer)).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(answer.status).toBe(400);
          expect(answer.field, `${field}=${JSON.stringify(value)} → ${JSON.stringify(answer)}`).toMatch(new RegExp(`^${field}(\\[|\\.|$)`));
          expect(answer.message).toContain(field);
        }
      }),
      { numRuns: 300, seed: 18 },
    );
    expect(seen.filter((s) => s === 400).length).toBeGreaterThan(200);
  });

  it('error: bodies that are not objects, or objects of the wrong shape, are 400s; unicode names round-trip', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 3 }).filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)), fc.string({ unit: 'grapheme', maxLength: 200 })), async (value) => {
        const answer = await post('/create-webhook', typeof value === 'string' ? value : JSON.stringify(value));
        expect(answer.status, JSON.stringify(answer)).toBe(400);
        expect(answer.message).toBeTruthy();
      }),
      { numRuns: 150, seed: 18 },
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }), async (name) => {
        const answer = await create({ name });
        if (unsafeTextProblem(name)) {
          expect(answer).toMatchObject({ status: 400, field: 'name' });
        } else {
          expect(answer.status, JSON.stringify(answer)).toBe(200);
          expect((answer.data as { name: string }).name).toBe(name);
        }
      }),
      { numRuns: 60, seed: 18 },
    );
  });

  it('error: 200,000-address bodies are 413 (over the body limit) or 400 naming addresses, memory bounded', async () => {
    const before = process.memoryUsage().rss;
    const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
    const big = Array.from({ length: 200_000 }, (_, i) => addr(i));
    const huge = await create({ addresses: big });
    expect(huge.status).toBe(413);
    // Short enough to fit the body limit, too many to store: the count is named.
    const many = await create({ addresses: Array.from({ length: 150_000 }, () => A1) });
    expect([many.status, many.field]).toEqual([400, 'addresses']);
    // 200,000 wrong-typed elements: the first bad one is named.
    const wrong = await post('/create-webhook', JSON.stringify({ ...valid, addresses: Array.from({ length: 200_000 }, () => 1) }));
    expect(wrong.status).toBe(400);
    expect(wrong.field).toMatch(/^addresses/);
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * 1024 * 1024);
  });

  it('error: deep nesting (100,000 levels) in any field is a 400 naming it or a 413, quickly', async () => {
    for (const depth of [1_000, 100_000]) {
      for (const [open, close] of [['[', ']'], ['{"a":', '}']] as const) {
        const nested = open.repeat(depth) + '1' + close.repeat(depth);
        const started = Date.now();
        const answer = await post('/create-webhook', `{"network":"ETH_MAINNET","webhook_type":"ADDRESS_ACTIVITY","webhook_url":"${URL_OK}","addresses":${nested}}`);
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(answer.status, JSON.stringify(answer)).toBe(400);
        expect(answer.field).toBe('addresses');
      }
    }
    // 64 levels are scanned (zod then names the first wrong element); 65 are refused for their depth.
    const at = (depth: number) => create({ name: JSON.parse('['.repeat(depth - 1) + ']'.repeat(depth - 1)) as unknown });
    expect(await at(64)).toMatchObject({ status: 400, field: 'name', message: 'name: must be a string' });
    expect(await at(65)).toMatchObject({ status: 400, field: 'name', message: 'name: must not nest arrays or objects deeper than 64 levels' });
    // A whole body that is nothing but nesting.
    const answer = await post('/create-webhook', '['.repeat(200_000) + ']'.repeat(200_000));
    expect(answer).toMatchObject({ status: 400, field: 'body' });
  });

  it('error: huge URLs are refused naming webhook_url; past the body limit it is a 413', async () => {
    for (const len of [2_049, 65_536, 1_000_000]) {
      const answer = await create({ webhook_url: `https://93.184.216.34/${'a'.repeat(len)}` });
      expect([answer.status, answer.field], `${len}`).toEqual([400, 'webhook_url']);
      expect(answer.message).toMatch(/at most 2048 characters/);
    }
    expect((await create({ webhook_url: `https://93.184.216.34/${'a'.repeat(9 * 1024 * 1024)}` })).status).toBe(413);
  });

  it('error: SSRF spellings of loopback, private and metadata addresses are refused naming webhook_url, at creation and by Test Webhook', async () => {
    const spellings = [
      'http://127.0.0.1/',
      'http://0x7f.1/',
      'http://0x7f000001/',
      'http://2130706433/',
      'http://017700000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://127.0.1/',
      'http://0/',
      'http://0.0.0.0/',
      'http://[::1]/',
      'http://[::]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[0:0:0:0:0:ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://172.16.0.1/',
      'http://100.64.0.1/',
      'http://user:pass@127.0.0.1:8080/',
      'http://127.0.0.1.nip.io.@127.0.0.1/',
      'HTTP://LOCALHOST/',
      'http://localhost/',
      'http://localhost./',
      'http://rebind.example.test/',
      'http://REBIND.example.test./',
      'http://dual.example.test/',
      'http://%31%32%37.0.0.1/',
      'http://127。0。0。1/',
      'http://①②⑦.0.0.1/',
    ];
    const answers: string[] = [];
    for (const url of spellings) {
      const created = await create({ webhook_url: url });
      const tested = await post('/test-webhook-url', JSON.stringify({ webhook_url: url }));
      answers.push(`${url} ${created.status} ${created.field ?? '-'} / ${tested.status} ${tested.field ?? '-'}`);
    }
    expect(answers.filter((a) => !/ 400 webhook_url \/ 400 webhook_url$/.test(a))).toEqual([]);
    // Other schemes are refused too.
    for (const url of ['file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'ftp://93.184.216.34/', 'javascript:alert(1)', 'ws://93.184.216.34/']) {
      expect([(await create({ webhook_url: url })).status, url]).toEqual([400, url]);
    }
  });

  it('error: hostile GraphQL queries (random text, deep parent chains, alias and fragment bombs, cycles, 1 MB) are 400s naming graphql_query, quickly', async () => {
    const gql = (query: unknown) => create({ webhook_type: 'GRAPHQL', addresses: undefined, graphql_query: query });
    const fixed: Array<[string, string]> = [
      ['deep parents', `{ block { ${'parent { '.repeat(200)}hash${' }'.repeat(200)} } }`],
      ['deep selections', `${'{ block '.repeat(5_000)}${'}'.repeat(5_000)}`],
      ['alias bomb', `{ block { ${Array.from({ length: 20_000 }, (_, i) => `a${i}: hash`).join(' ')} } }`],
      ['fragment cycle', 'query { block { ...A } } fragment A on Block { parent { ...B } } fragment B on Block { parent { ...A } }'],
      ['fragment bomb', `{ block { ...F0 } } ${Array.from({ length: 30 }, (_, i) => `fragment F${i} on Block { a: parent { ...F${i + 1} } b: parent { ...F${i + 1} } }`).join(' ')} fragment F30 on Block { hash }`],
      ['introspection', '{ __schema { types { name fields { name type { name ofType { name ofType { name } } } } } } }'],
      ['huge', `{ block { hash } } # ${'x'.repeat(1_000_000)}`],
      ['unicode', '{ block { hásh 🦀 } }'],
    ];
    const failures: string[] = [];
    for (const [name, query] of fixed) {
      const started = Date.now();
      const answer = await gql(query);
      const ms = Date.now() - started;
      if (answer.status !== 400 || answer.field !== 'graphql_query' || ms > 3_000) failures.push(`${name}: ${answer.status} ${answer.field} ${ms} ms ${answer.message?.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 300 }), fc.stringMatching(/^[{}()a-z: .\n$!@#]{0,300}$/), fc.jsonValue({ maxDepth: 3 })), async (query) => {
        const answer = await gql(query);
        expect(answer.status, JSON.stringify(answer)).toBeLessThan(500);
        if (answer.status >= 400) expect(answer.field, JSON.stringify(answer)).toMatch(/^graphql_query/);
      }),
      { numRuns: 200, seed: 18 },
    );
  });

  it('behavior: a redirect from an allowed listener to an internal address is never followed (creation passes, the delivery reports the 3xx)', async () => {
    let internalHits = 0;
    const internal = createServer((_req, res) => {
      internalHits++;
      res.end('secret');
    });
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    const internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}/admin`;
    const redirector: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(307, { Location: internalUrl }).end());
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    const port = (redirector.address() as AddressInfo).port;
    try {
      // Straight to the internal address: refused.
      expect(await create({ webhook_url: internalUrl })).toMatchObject({ status: 400, field: 'webhook_url' });
      // Through the allow-listed redirector: the test notification reports the redirect and stops.
      const tested = await post('/test-webhook-url', JSON.stringify({ webhook_url: `http://redirector.test:${port}/hook` }));
      expect(tested.status).toBe(200);
      expect((tested.data as { status_code: number }).status_code).toBe(307);
      expect(internalHits).toBe(0);
    } finally {
      await new Promise<void>((r) => internal.close(() => r()));
      await new Promise<void>((r) => redirector.close(() => r()));
    }
  });
});
