// A batch's answer is bounded as a whole: over real HTTP, elements past --max-response-bytes answer
// -32005 and the batch's pending calls are cancelled instead of adding up.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './testing/startTestGateway.js';
import { DEFAULT_LIMITS } from './gatewayOptions.js';

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const call = (id: number, method: string, params: unknown[]) => ({ jsonrpc: '2.0', id, method, params });
type Answer = { id: number; result?: string; error?: { code: number; message: string } };

async function post(url: string, body: unknown): Promise<Answer[]> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return (await r.json()) as Answer[];
}

describe('batch answer budget', () => {
  it('error: elements past the budget answer -32005 naming the limit; the ones before it are whole', async () => {
    t = await startTestGateway({ limits: { ...DEFAULT_LIMITS, maxResponseBytes: 10_000 } });
    const answers = await post(`${t.url}/v2/${t.keys.enterprise}`, [1, 2, 3, 4, 5].map((id) => call(id, 'test_big', [4000])));
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5]);
    expect(answers.slice(0, 2).map((a) => a.result?.length)).toEqual([4000, 4000]);
    for (const a of answers.slice(2)) {
      expect(a.error).toEqual({
        code: -32005,
        message: "the batch's answer exceeds the limit of 10000 bytes (--max-response-bytes): send fewer or smaller calls per batch",
      });
    }
  });

  it('behavior: once the budget is spent the batch\'s pending calls are cancelled, not waited for', async () => {
    t = await startTestGateway({ limits: { ...DEFAULT_LIMITS, maxResponseBytes: 10_000 } });
    const started = performance.now();
    const answers = await post(`${t.url}/v2/${t.keys.enterprise}`, [call(1, 'test_sleep', [20_000]), call(2, 'test_big', [20_000])]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(answers.map((a) => a.error?.code)).toEqual([-32005, -32005]);
    expect(t.state.sleeping).toBe(0);
  });

  it('behavior: a pending call listening through onCancel is cancelled too when the budget is spent', async () => {
    t = await startTestGateway({ limits: { ...DEFAULT_LIMITS, maxResponseBytes: 10_000 } });
    const started = performance.now();
    const answers = await post(`${t.url}/v2/${t.keys.enterprise}`, [call(1, 'test_sleepOnCancel', [20_000]), call(2, 'test_big', [20_000])]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(answers.map((a) => a.error?.code)).toEqual([-32005, -32005]);
    expect(t.state.sleeping).toBe(0);
  });

  it('default: a batch under the budget is answered as before', async () => {
    t = await startTestGateway();
    const answers = await post(`${t.url}/v2/${t.keys.enterprise}`, [call(1, 'test_big', [100]), call(2, 'eth_blockNumber', [])]);
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'x'.repeat(100) },
      { jsonrpc: '2.0', id: 2, result: '0x18' },
    ]);
  });
});
