// A batch's calls grouped by backend: a backend that takes batches gets its calls as one group,
// the embedded method table still runs each call on its own, answers keep the batch's order.
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend, BackendCall, CallOutcome } from '../backends/backend.js';
import { InvalidParamsError, UpstreamTimeoutError } from '../rpc/errors.js';
import { createTestTable } from './testing/testNamespace.js';
import { post, startTestGateway, type TestGateway } from './testing/startTestGateway.js';

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A pass-through backend that records each batch it gets and answers `<method>:<params>`. */
function recordingBackend(answer?: (calls: readonly BackendCall[]) => Promise<CallOutcome[]>) {
  const batches: BackendCall[][] = [];
  const single: string[] = [];
  const backend: Backend = {
    name: 'upstream',
    handles: () => true,
    call: async (method) => {
      single.push(method);
      return `one:${method}`;
    },
    callBatch: async (calls) => {
      batches.push([...calls]);
      if (answer) return answer(calls);
      return calls.map((c) => (c.method === 'big_int' ? { ok: true, result: 1n } : c.method === 'bad_params' ? { ok: false, error: new InvalidParamsError('bad') } : { ok: true, result: `batch:${c.method}:${JSON.stringify(c.params)}` }));
    },
  };
  return { backend, batches, single };
}

const call = (id: number | undefined, method: string, params: unknown[] = []) => (id === undefined ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params });

describe('batches grouped by backend', () => {
  it('behavior: the pass-through calls of a batch go to their backend as one group, local calls run on their own, answers in order', async () => {
    const rec = recordingBackend();
    t = await startTestGateway({ networks: [{ name: 'mainnet', table: createTestTable(), passThrough: rec.backend }] });
    const body = [call(1, 'eth_getLogs', [{}]), call(2, 'eth_chainId'), call(3, 'trace_call', ['x']), call(4, 'bad_params'), call(undefined, 'eth_newFilter')];
    const r = await post(`${t.url}/v2/${t.keys.payg}`, JSON.stringify(body));
    expect(r.json).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'batch:eth_getLogs:[{}]' },
      { jsonrpc: '2.0', id: 2, result: '0x7a69' },
      { jsonrpc: '2.0', id: 3, result: 'batch:trace_call:["x"]' },
      { jsonrpc: '2.0', id: 4, error: { code: -32602, message: 'bad' } },
    ]);
    expect(rec.batches.map((b) => b.map((c) => c.method))).toEqual([['eth_getLogs', 'trace_call', 'bad_params', 'eth_newFilter']]);
    expect(rec.single).toEqual([]);
  });

  it('behavior: a single pass-through call in a batch uses call(), not a batch of one', async () => {
    const rec = recordingBackend();
    t = await startTestGateway({ networks: [{ name: 'mainnet', table: createTestTable(), passThrough: rec.backend }] });
    const r = await post(`${t.url}/v2/${t.keys.payg}`, JSON.stringify([call(1, 'eth_chainId'), call(2, 'eth_getLogs', [{}])]));
    expect(r.json).toEqual([{ jsonrpc: '2.0', id: 1, result: '0x7a69' }, { jsonrpc: '2.0', id: 2, result: 'one:eth_getLogs' }]);
    expect(rec.batches).toEqual([]);
  });

  it('error: a result of a group that cannot be encoded fails that call only', async () => {
    const rec = recordingBackend();
    t = await startTestGateway({ networks: [{ name: 'mainnet', table: createTestTable(), passThrough: rec.backend }] });
    const r = await post(`${t.url}/v2/${t.keys.payg}`, JSON.stringify([call(1, 'big_int'), call(2, 'eth_getLogs', [{}])]));
    const answers = r.json as { id: number; result?: unknown; error?: { code: number } }[];
    expect(answers.map((a) => [a.id, a.error?.code ?? a.result])).toEqual([[1, -32603], [2, 'batch:eth_getLogs:[{}]']]);
  });

  it('error: a group that fails as a whole answers each of its calls with that error, the others still answer', async () => {
    const rec = recordingBackend(() => Promise.reject(new UpstreamTimeoutError('node-a', 500)));
    t = await startTestGateway({ networks: [{ name: 'mainnet', table: createTestTable(), passThrough: rec.backend }] });
    const r = await post(`${t.url}/v2/${t.keys.payg}`, JSON.stringify([call(1, 'eth_getLogs', [{}]), call(2, 'eth_chainId'), call(3, 'trace_block', ['0x1'])]));
    const timeout = { code: -32603, message: 'Upstream node-a: no answer within 500 ms' };
    expect(r.json).toEqual([
      { jsonrpc: '2.0', id: 1, error: timeout },
      { jsonrpc: '2.0', id: 2, result: '0x7a69' },
      { jsonrpc: '2.0', id: 3, error: timeout },
    ]);
  });
});
