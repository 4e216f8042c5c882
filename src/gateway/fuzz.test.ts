// Fuzzing the front door over real HTTP (fast-check): random bytes, truncated JSON, deep nesting,
// huge strings, wrong envelopes, odd batches, raw non-HTTP bytes and slow clients. The server must
// never crash, memory must stay bounded, and every answer must be a well-formed JSON-RPC error or
// response with the status an independent oracle predicts.
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startTestGateway, type TestGateway } from './testing/startTestGateway.js';

const MAX_BATCH = 50;
const MAX_BODY = 256 * 1024;
let t: TestGateway;
let url: string;

beforeAll(async () => {
  t = await startTestGateway({
    limits: { maxBatchSize: MAX_BATCH, maxBodyBytes: MAX_BODY, headersTimeoutMs: 400, requestTimeoutMs: 1000 },
  });
  url = `${t.url}/v2/${t.keys.enterprise}`;
});
afterAll(async () => t.close());

const METHODS = ['eth_chainId', 'eth_blockNumber', 'eth_getBalance', 'trace_transaction', 'test_fail', 'web3_clientVersion', 'nope'];

function isEnvelopeValid(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if ('id' in o && !(o.id === null || typeof o.id === 'string' || typeof o.id === 'number')) return false;
  if (o.jsonrpc !== '2.0' || typeof o.method !== 'string' || o.method === '') return false;
  return o.params === undefined || o.params === null || typeof o.params === 'object';
}

/** Nesting depth of a parsed value (arrays and objects), without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    max = Math.max(max, d);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

const isNotification = (v: unknown) => isEnvelopeValid(v) && !Object.prototype.hasOwnProperty.call(v, 'id');

/** The status the error table prescribes for a body sent with the enterprise key. */
function expectedStatus(body: string | Uint8Array): number {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  if (Buffer.byteLength(text) > MAX_BODY) return 413;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 400;
  }
  // Bodies nested deeper than 64 levels are refused before parsing.
  if (depthOf(value) > 64) return 400;
  if (Array.isArray(value)) {
    if (value.length === 0) return 400;
    if (value.length > MAX_BATCH) return 413;
    return value.every(isNotification) ? 204 : 200;
  }
  if (typeof value !== 'object' || value === null || !isEnvelopeValid(value)) return 400;
  return isNotification(value) ? 204 : 200;
}

function checkResponseObject(o: unknown): void {
  expect(o).toBeTypeOf('object');
  const r = o as Record<string, unknown>;
  expect(r.jsonrpc).toBe('2.0');
  expect('id' in r).toBe(true);
  expect(['string', 'number', 'object'].includes(typeof r.id)).toBe(true);
  expect('result' in r !== 'error' in r).toBe(true);
  if ('error' in r) {
    const e = r.error as { code: unknown; message: unknown };
    expect(Number.isInteger(e.code)).toBe(true);
    expect(typeof e.message).toBe('string');
    expect(JSON.stringify(e)).not.toContain('hunter2');
  }
}

async function sendAndCheck(body: string | Uint8Array): Promise<void> {
  const r = await post(url, typeof body === 'string' ? body : Buffer.from(body));
  const want = expectedStatus(body);
  expect(r.status, `body ${String(body).slice(0, 80)}`).toBe(want);
  if (want === 204) {
    expect(r.text).toBe('');
    return;
  }
  expect(r.headers.get('content-type')).toBe('application/json');
  expect(r.json, r.text.slice(0, 200)).toBeDefined();
  if (Array.isArray(r.json)) {
    expect(r.status).toBe(200);
    for (const element of r.json) checkResponseObject(element);
  } else {
    checkResponseObject(r.json);
    if (r.status !== 200) expect((r.json as { error?: unknown }).error).toBeDefined();
  }
  if (want === 400 && !Array.isArray(r.json)) {
    const code = (r.json as { error: { code: number } }).error.code;
    expect([-32700, -32600]).toContain(code);
  }
}

const envelope = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.anything()),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.anything()),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string(), fc.anything()),
    params: fc.oneof(fc.constant([]), fc.array(fc.jsonValue(), { maxLength: 3 }), fc.anything()),
  },
  { requiredKeys: [] },
);

const bodies = fc.oneof(
  fc.uint8Array({ maxLength: 2048 }),
  fc.string({ maxLength: 500 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  envelope.map((v) => JSON.stringify(v)),
  fc.array(fc.oneof(envelope, fc.anything()), { maxLength: MAX_BATCH + 10 }).map((v) => JSON.stringify(v)),
  fc.tuple(envelope.map((v) => JSON.stringify(v)), fc.nat()).map(([s, n]) => s.slice(0, n % (s.length + 1))),
  fc.integer({ min: 1, max: 50_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":${'['.repeat(n)}${']'.repeat(n)}}`),
  fc.integer({ min: 1, max: 300_000 }).map((n) => JSON.stringify({ jsonrpc: '2.0', id: 'x'.repeat(n % 1000), method: 'm'.repeat(n), params: ['y'.repeat(n)] })),
);

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('front door fuzzing', () => {
  it('behavior: arbitrary bodies get well-formed answers with the right status, and memory stays bounded', async () => {
    await fc.assert(fc.asyncProperty(bodies, sendAndCheck), { numRuns: 150 });
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    await fc.assert(fc.asyncProperty(bodies, sendAndCheck), { numRuns: 300 });
    collectGarbage();
    const grownMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
    expect(grownMb).toBeLessThan(16);
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('behavior: fixed hostile bodies (empty batch, 10,000 elements, wrong jsonrpc, non-object members)', async () => {
    for (const body of [
      '[]',
      JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }))),
      '{"jsonrpc":2,"id":1,"method":"eth_chainId"}',
      '[1,"a",null,[],{}]',
      '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","__proto__":{"polluted":true}}',
    ]) {
      await sendAndCheck(body);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('behavior: raw non-HTTP bytes on the socket get a JSON 400 or a closed connection', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 512 }), async (bytes) => {
        const reply = await new Promise<string>((resolve) => {
          const socket = connect(t.port, '127.0.0.1', () => socket.end(Buffer.concat([Buffer.from(bytes), Buffer.from('\r\n\r\n')])));
          let data = '';
          socket.on('data', (c: Buffer) => (data += c.toString('latin1')));
          socket.on('close', () => resolve(data));
          socket.on('error', () => resolve(data));
          socket.setTimeout(3000, () => socket.destroy());
        });
        if (reply.length > 0) {
          expect(reply).toMatch(/^HTTP\/1\.1 \d{3} /);
          const body = reply.slice(reply.indexOf('\r\n\r\n') + 4);
          if (body.length > 0) checkResponseObject(JSON.parse(body));
        }
      }),
      { numRuns: 60 },
    );
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  }, 60_000);

  it('behavior: slow clients are cut off while others are served', async () => {
    const slow = Array.from({ length: 20 }, () =>
      new Promise<string>((resolve) => {
        const socket = connect(t.port, '127.0.0.1', () => socket.write('POST /v2/x HTTP/1.1\r\nHost: a\r\n'));
        let data = '';
        socket.on('data', (c: Buffer) => (data += c.toString()));
        socket.on('close', () => resolve(data));
        socket.on('error', () => resolve(data));
      }),
    );
    const ok = await post(url, '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    expect(ok.status).toBe(200);
    const answers = await Promise.all(slow);
    for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);
});
