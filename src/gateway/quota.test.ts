// Compute-unit admission over real HTTP: what can never fit a key's bucket is refused whole before
// any work (no debt), calls refused before work are not billed, and a body's size is charged
// before it is parsed.
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from './clock.js';
import { post, rpcBody, startTestGateway, type TestGateway } from './testing/startTestGateway.js';

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const batchOf = (n: number, method: string, params: unknown[] = []) =>
  JSON.stringify(Array.from({ length: n }, (_, id) => ({ jsonrpc: '2.0', id, method, params })));

/** Usage rows of a key by method, through the keys API (which flushes the recorder first). */
async function usageOf(g: TestGateway, keyId: string): Promise<Record<string, { requests: number; computeUnits: number }>> {
  const r = await fetch(`${g.url}/api/keys/${keyId}/usage?from=2000-01-01&to=2999-01-01`, { headers: { 'x-service-token': g.authToken } });
  const body = (await r.json()) as { data: { days: Array<{ methods: Record<string, { requests: number; compute_units: number }> }> } };
  const methods: Record<string, { requests: number; computeUnits: number }> = {};
  for (const day of body.data.days) for (const [name, m] of Object.entries(day.methods)) methods[name] = { requests: m.requests, computeUnits: m.compute_units };
  return methods;
}

describe('admission without debt', () => {
  it('error: a batch costing more than the bucket ever holds is refused whole with 429 before any work', async () => {
    const clock = createManualClock();
    t = await startTestGateway({ clock });
    const url = `${t.url}/v2/${t.keys.free}`;
    // 1000 calls of 20 CU (the default cost) against the free tier's 330 CU/s: the issue's
    // 26,000 CU batch of eth_calls in small. Each call would sleep 10 s.
    const body = batchOf(1000, 'test_sleep', [10_000]);
    // Its size (1 CU per KiB above 16 KiB) and its 6000 JSON values (1 CU per 50 above 1000).
    const bodyCu = Math.ceil((Buffer.byteLength(body) - 16 * 1024) / 1024) + 100;
    const started = performance.now();
    const r = await post(url, body);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(t.state.sleeping).toBe(0);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: 429,
        message: `A batch of 1000 calls costs ${20_000 + bodyCu} compute units (20000 for its calls, ${bodyCu} for its body), more than the free tier's limit of 330 compute units at once (330 per second): send smaller requests`,
        data: { costCu: 20_000 + bodyCu, burstCu: 330, cuPerSecond: 330 },
      },
    });
    // No debt: the key's next ordinary call is served at once, and no call was billed.
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(200);
    const usage = await usageOf(t, t.keyIds.free);
    expect(usage.test_sleep).toBeUndefined();
    expect(usage.request_body).toEqual({ requests: 0, computeUnits: bodyCu });
  });

  it('error: a single call costing more than the burst is refused naming its cost and the limit', async () => {
    t = await startTestGateway({ tiers: { cuPerSecond: { free: 15 } } });
    const r = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_getBalance', ['0x' + '00'.repeat(20)], 4));
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({
      id: 4,
      error: { code: 429, message: "This request costs 19 compute units, more than the free tier's limit of 15 compute units at once (15 per second): send smaller requests" },
    });
  });

  it('behavior: batch elements refused before work (-32005, a full queue) are given back and not billed', async () => {
    const clock = createManualClock();
    t = await startTestGateway({ clock, tiers: { cuPerSecond: { payg: 100 } } });
    const url = `${t.url}/v2/${t.keys.payg}`;
    // 5 × 20 CU takes the whole 100 CU bucket; the queue admits 2, the other 3 are refused.
    const r = await post(url, batchOf(5, 'test_queued', [20]));
    expect(r.status).toBe(200);
    const codes = (r.json as Array<{ result?: string; error?: { code: number } }>).map((a) => a.result ?? a.error!.code);
    expect(codes.filter((c) => c === 'done')).toHaveLength(2);
    expect(codes.filter((c) => c === -32005)).toHaveLength(3);
    // The 60 CU of the refused elements are back in the bucket (the clock has not moved)...
    expect((await post(url, batchOf(2, 'test_queued', [0]))).status).toBe(200);
    expect((await post(url, rpcBody('test_queued', [0]))).status).toBe(200);
    expect((await post(url, rpcBody('test_queued', [0]))).status).toBe(429);
    // ...and usage counts only the calls that ran.
    expect((await usageOf(t, t.keyIds.payg)).test_queued).toEqual({ requests: 5, computeUnits: 100 });
  });

  it('behavior: a -32005 reached while working (not refused before work) is billed', async () => {
    const clock = createManualClock();
    t = await startTestGateway({ clock, tiers: { cuPerSecond: { payg: 100 } } });
    const url = `${t.url}/v2/${t.keys.payg}`;
    const r = await post(url, batchOf(5, 'test_overCap', []));
    expect((r.json as Array<{ error: { code: number } }>).map((a) => a.error.code)).toEqual([-32005, -32005, -32005, -32005, -32005]);
    // The bucket stays empty (the clock has not moved) and usage counts every call.
    expect((await post(url, rpcBody('test_queued', [0]))).status).toBe(429);
    expect((await usageOf(t, t.keyIds.payg)).test_overCap).toEqual({ requests: 5, computeUnits: 100 });
  });

  it('behavior: elements refused for the tier are not billed', async () => {
    t = await startTestGateway();
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'trace_transaction', params: ['0x' + 'ab'.repeat(32)] },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber' },
    ]);
    expect((await post(`${t.url}/v2/${t.keys.free}`, body)).status).toBe(200);
    const usage = await usageOf(t, t.keyIds.free);
    expect(usage).toEqual({ eth_blockNumber: { requests: 1, computeUnits: 10 } });
  });
});

describe('body size', () => {
  const bigCall = (bytes: number) => rpcBody('eth_getBalance', ['0x' + '00'.repeat(20), 'x'.repeat(bytes)], 7);

  it('error: a body whose size costs more than the bucket holds is refused with 429 before parsing', async () => {
    t = await startTestGateway();
    const body = bigCall(400 * 1024);
    const bytes = Buffer.byteLength(body);
    const cost = Math.ceil((bytes - 16 * 1024) / 1024);
    const r = await post(`${t.url}/v2/${t.keys.free}`, body);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: 429,
        message: `A request body of ${bytes} bytes costs ${cost} compute units, more than the free tier's limit of 330 compute units at once (330 per second): send smaller requests`,
        data: { costCu: cost, burstCu: 330, cuPerSecond: 330 },
      },
    });
  });

  it('behavior: a body that fits is charged by size and recorded as request_body; small bodies are free', async () => {
    const clock = createManualClock();
    t = await startTestGateway({ clock });
    const url = `${t.url}/v2/${t.keys.free}`;
    // 216 CU of body + 19 CU of call: fits the 330 CU bucket once.
    const body = bigCall(232 * 1024);
    const cost = Math.ceil((Buffer.byteLength(body) - 16 * 1024) / 1024);
    const r = await post(url, body);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: 7, error: { code: -32602 } });
    // The second one's body (216 CU) does not fit what is left (95 CU).
    const limited = await post(url, body);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(200);
    const usage = await usageOf(t, t.keyIds.free);
    expect(usage.request_body).toEqual({ requests: 0, computeUnits: cost });
    expect(usage.eth_blockNumber).toEqual({ requests: 1, computeUnits: 10 });
  });

  it('error: the JSON values of a body are charged before parsing, and refused when they never fit', async () => {
    t = await startTestGateway();
    const n = 20_000;
    const body = `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[${Array(n).fill('0').join(',')}]}`;
    const sizeCu = Math.ceil((Buffer.byteLength(body) - 16 * 1024) / 1024);
    const valuesCu = Math.ceil((n + 4 - 1000) / 50);
    const free = await post(`${t.url}/v2/${t.keys.free}`, body);
    expect(free.status).toBe(429);
    expect(free.json).toMatchObject({
      error: {
        code: 429,
        message: `A request body of ${n + 4} JSON values costs ${sizeCu + valuesCu} compute units (${valuesCu} for them, ${sizeCu} for its size), more than the free tier's limit of 330 compute units at once (330 per second): send smaller requests`,
      },
    });
    const payg = await post(`${t.url}/v2/${t.keys.payg}`, body);
    expect(payg.json).toMatchObject({ id: 1, error: { code: -32602 } });
    expect((await usageOf(t, t.keyIds.payg)).request_body).toEqual({ requests: 0, computeUnits: sizeCu + valuesCu });
  });

  it('error: a 5 MiB body of a million tiny values is refused before parsing (413), even for a paid key', async () => {
    t = await startTestGateway();
    const wide = `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[${Array(1_700_000).fill('[]').join(',')}]}`;
    const started = performance.now();
    const r = await post(`${t.url}/v2/${t.keys.payg}`, wide);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ error: { code: -32600, message: 'Request body holds more than 100000 JSON values (arrays, objects and separators), the limit' } });
  });

  it('error: a 5 MiB nested-array body is refused: 429 for a free key, 400 naming the depth for a paid one', async () => {
    t = await startTestGateway();
    const half = 5 * 512 * 1024 - 1;
    const nested = '['.repeat(half) + ']'.repeat(half);
    const free = await post(`${t.url}/v2/${t.keys.free}`, nested);
    expect(free.status).toBe(429);
    expect(free.json).toMatchObject({ error: { code: 429, data: { costCu: 5104, burstCu: 330 } } });
    const started = performance.now();
    const payg = await post(`${t.url}/v2/${t.keys.payg}`, nested);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(payg.status).toBe(400);
    expect(payg.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: JSON nested deeper than 64 levels (arrays and objects inside each other)' },
    });
  });
});
