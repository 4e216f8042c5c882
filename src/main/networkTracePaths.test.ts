// The trace path choice as networkBackends.ts wires it (cache → paths → routed pool), through a real
// gateway (fast path and node:http) over a real anvil fed the same signed TraceProbe transactions
// as the embedded chain: what anvil lacks (trace_get, trace_replayTransaction, trace_call,
// flatCallTracer) answers translated and equal to the embedded engine's answer, what it has answers
// natively, each with its X-Trace-Source; GET /api/upstreams' trace_paths and /metrics' counts.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log/createLogger.js';
import { post, rpcBody, startTestGateway, TEST_AUTH_TOKEN, type TestGateway } from '../gateway/testing/startTestGateway.js';
import { createUpstreamsRoutes } from '../gateway/api/upstreamsRoute.js';
import { rpc } from '../backends/embedded/testing/chainRpc.js';
import { DIFFERENCES, type Entry } from '../backends/embedded/testing/traceDifferences.js';
import { type Json, type TraceAnvilPair, startTraceAnvilPair } from '../backends/embedded/testing/traceAnvilPair.js';
import { createCacheMetrics } from '../backends/upstream/cache/cacheMetrics.js';
import { createTracePathMetrics } from '../backends/upstream/tracePathMetrics.js';
import { createNetworkBackend, type NetworkBackend } from './networkBackends.js';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

let pair: TraceAnvilPair;

beforeAll(async () => {
  pair = await startTraceAnvilPair(['--hardfork', 'prague']);
}, 60_000);
afterAll(async () => {
  await pair?.stop();
});

async function ours(method: string, params: unknown[]): Promise<Json> {
  const answer = await rpc(pair.table, method, params);
  if ('error' in answer) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as Json;
}

/** DIFFERENCES.blockHash: anvil's entries carry anvil's block hash; checked, then set to ours. */
async function withOurBlockHash(entries: Entry[], hash: string): Promise<Entry[]> {
  const [theirs, mine] = (await pair.both('eth_getTransactionReceipt', [hash])) as [{ blockHash: string }, { blockHash: string }];
  return entries.map((e) => {
    expect(e.blockHash, DIFFERENCES.blockHash).toBe(theirs.blockHash);
    return { ...e, blockHash: mine.blockHash };
  });
}

describe.each([
  ['fast path', true],
  ['node:http', false],
])('trace paths on an anvil network through a real gateway (%s)', (_name, fastPath) => {
  let t: TestGateway;
  let url: string;
  // A network (and so a cache) of its own: the other run's answers must not be this one's hits.
  let net: NetworkBackend;
  beforeAll(async () => {
    const tracePathMetrics = createTracePathMetrics();
    net = createNetworkBackend({ kind: 'upstream', name: 'ANVIL', chainId: 31337n, upstreams: [{ url: pair.anvil.url, weight: 1 }] }, { logger, headPollMs: 100, tracePathMetrics, cacheMetrics: createCacheMetrics() });
    await net.start();
    t = await startTestGateway({ networks: [{ name: 'anvil', passThrough: net.backend }], fastPath, apiRoutes: createUpstreamsRoutes({ networks: () => [net.status()] }) });
    tracePathMetrics.bind(t.gateway.metrics.registry);
    url = `${t.url}/v2/${t.keys.enterprise}`;
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    net?.close();
  });

  const ask = async (method: string, params: unknown[]) => {
    const r = await post(url, rpcBody(method, params));
    const body = r.json as { result?: Json; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return { result: body.result as Json, source: r.headers.get('x-trace-source'), cache: r.headers.get('x-cache') };
  };

  it('behavior: what anvil lacks answers translated, equal to the embedded engine; the cache keeps the translated answer', async () => {
    const hash = pair.hashes.get('nested')!;
    const replay = await ask('trace_replayTransaction', [hash, ['trace', 'stateDiff']]);
    expect(replay.source).toBe('translated');
    expect(replay.result).toEqual(await ours('trace_replayTransaction', [hash, ['trace', 'stateDiff']]));
    const get = await ask('trace_get', [hash, ['0x0']]);
    expect(get.source).toBe('translated');
    expect(await withOurBlockHash([get.result as Entry], hash)).toEqual([await ours('trace_get', [hash, ['0x0']])]);
    const flat = await ask('debug_traceTransaction', [hash, { tracer: 'flatCallTracer' }]);
    expect(flat.source).toBe('translated');
    expect(await withOurBlockHash(flat.result as Entry[], hash)).toEqual(await ours('debug_traceTransaction', [hash, { tracer: 'flatCallTracer' }]));
    const call = { from: ((await ours('eth_accounts', [])) as string[])[0], to: ((await ours('eth_getTransactionReceipt', [pair.hashes.get('deployProbe')!])) as { contractAddress: string }).contractAddress, data: '0x' };
    const traced = await ask('trace_call', [call, ['trace', 'stateDiff'], 'latest']);
    expect(traced.source).toBe('translated');
    expect(traced.result).toEqual(await ours('trace_call', [call, ['trace', 'stateDiff'], 'latest']));
    // Cached under the method's own key: the second answer is the cache's, the same, with no source of its own.
    expect(flat.cache).toBe('MISS');
    const again = await ask('debug_traceTransaction', [hash, { tracer: 'flatCallTracer' }]);
    expect(again).toEqual({ result: flat.result, cache: 'HIT', source: null });
  }, 60_000);

  it('behavior: what anvil has answers natively; a batch lists each source once', async () => {
    const hash = pair.hashes.get('ethTransfer')!;
    const native = await ask('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
    expect(native.source).toBe('native');
    expect(native.result).toEqual((await pair.anvilRpc('debug_traceTransaction', [hash, { tracer: 'callTracer' }]) as { result: Json }).result);
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'trace_block', params: ['0x1'] },
      { jsonrpc: '2.0', id: 2, method: 'trace_get', params: [pair.hashes.get('pay')!, ['0x0']] },
      { jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: [] },
    ]);
    const r = await post(url, batch);
    expect((r.json as { result?: unknown }[]).every((a) => a.result !== undefined)).toBe(true);
    // Each source once, in the order the calls finished (a translation may finish first).
    expect(r.headers.get('x-trace-source')?.split(', ').sort()).toEqual(['native', 'translated']);
    expect((await post(url, rpcBody('eth_blockNumber', []))).headers.get('x-trace-source')).toBeNull();
  }, 30_000);

  it('error: a path no upstream and no translation has (vmTrace, no executor) is -32601 naming the method and network', async () => {
    const r = await post(url, rpcBody('trace_replayTransaction', [pair.hashes.get('nested')!, ['vmTrace']]));
    expect((r.json as { error: { code: number; message: string } }).error).toMatchObject({ code: -32601, message: expect.stringContaining('trace_replayTransaction') });
    expect(r.headers.get('x-trace-source')).toBeNull();
  });

  it('default: GET /api/upstreams says which path each trace method takes; /metrics counts the answers by source', async () => {
    const res = await fetch(`${t.url}/api/upstreams`, { headers: { 'x-service-token': TEST_AUTH_TOKEN } });
    const { data } = (await res.json()) as { data: { trace_paths: Record<string, string> }[] };
    expect(data[0]!.trace_paths).toMatchObject({
      trace_transaction: 'native',
      trace_block: 'native',
      trace_get: 'translated',
      'trace_call/trace': 'translated',
      'trace_call/stateDiff': 'translated',
      'trace_call/vmTrace': 'unsupported',
      'trace_replayTransaction/trace': 'translated',
      'trace_replayBlockTransactions/vmTrace': 'native',
      'debug_traceTransaction/callTracer': 'native',
      'debug_traceTransaction/flatCallTracer': 'translated',
      'debug_traceCall/structLogger': 'native',
    });
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/tracehook_trace_answers_total\{network="ANVIL",method="trace_get",source="translated"\} [1-9]/);
    expect(metrics).toMatch(/tracehook_trace_answers_total\{network="ANVIL",method="debug_traceTransaction",source="native"\} [1-9]/);
  });
});
