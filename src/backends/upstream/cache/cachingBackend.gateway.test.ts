// The cache behind a real gateway (fast path and node:http alone) over a real anvil: the X-Cache
// header (single calls, batches: HIT only when every cacheable call hit, none without a cacheable
// call), answers equal to anvil's, and the cache's series in /metrics once bound to the registry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilProcess } from '../../../testing/startAnvil.js';
import { post, rpcBody, startTestGateway, type TestGateway } from '../../../gateway/testing/startTestGateway.js';
import type { Hex } from '../../../rpc/hex.js';
import { createUpstreamBackend, type UpstreamBackend } from '../upstreamBackend.js';
import { createCachingBackend, type CachingBackend } from './cachingBackend.js';
import { createCacheMetrics } from './cacheMetrics.js';
import { createTestChainView } from './testing/testChainView.js';

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const ctx = { requestId: 'test', signal: new AbortController().signal };

let anvil: AnvilProcess;
let node: UpstreamBackend;
let tx: Hex;
beforeAll(async () => {
  anvil = await startAnvil();
  node = createUpstreamBackend({ url: anvil.url, name: 'anvil' });
  tx = (await node.call('eth_sendTransaction', [{ from: FROM, to: FROM, value: '0x1' }], ctx)) as Hex;
  // Automine answers before the block is in: wait for it, so the chain view sees the block.
  for (let i = 0; i < 200 && (await node.call('eth_getTransactionReceipt', [tx], ctx)) === null; i++) await new Promise((r) => setTimeout(r, 10));
}, 30_000);
afterAll(async () => {
  node?.close();
  await anvil?.stop();
});

describe.each([
  ['fast path', true],
  ['node:http', false],
])('X-Cache through a real gateway (%s)', (_name, fastPath) => {
  let t: TestGateway;
  let cache: CachingBackend;
  let rpc: string;
  beforeAll(async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const metrics = createCacheMetrics();
    cache = createCachingBackend(node, { chain: view, maxBytes: 1 << 20, network: 'mainnet', metrics });
    t = await startTestGateway({ networks: [{ name: 'mainnet', passThrough: cache }], fastPath });
    metrics.bind(t.gateway.metrics.registry);
    rpc = `${t.url}/v2/${t.keys.enterprise}`;
  });
  afterAll(async () => {
    await t?.close();
    cache?.close();
  });

  it('default: a cacheable call answers MISS, then HIT, with anvil\'s answer both times', async () => {
    const expected = await node.call('trace_transaction', [tx], ctx);
    const headers = { 'content-type': 'application/json', origin: 'https://app.example' };
    const miss = await post(rpc, rpcBody('trace_transaction', [tx]), headers);
    const hit = await post(rpc, rpcBody('trace_transaction', [tx]), headers);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(miss.json).toEqual({ jsonrpc: '2.0', id: 1, result: expected });
    expect(hit.text).toBe(miss.text);
    expect(hit.headers.get('access-control-expose-headers')).toContain('X-Cache');
  });

  it('behavior: a call the cache does not keep carries no X-Cache header', async () => {
    const r = await post(rpc, rpcBody('eth_blockNumber'));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-cache')).toBeNull();
  });

  it('behavior: a batch is HIT only when every cacheable call hit; calls the cache does not keep do not count', async () => {
    const batch = (calls: [string, unknown[]][]) => JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params })));
    await post(rpc, rpcBody('eth_getTransactionReceipt', [tx]));
    const allHit = await post(rpc, batch([['trace_transaction', [tx]], ['eth_blockNumber', []], ['eth_getTransactionReceipt', [tx]]]));
    expect(allHit.headers.get('x-cache')).toBe('HIT');
    expect((allHit.json as unknown[]).length).toBe(3);
    const oneMiss = await post(rpc, batch([['trace_transaction', [tx]], ['eth_getTransactionByHash', [tx]]]));
    expect(oneMiss.headers.get('x-cache')).toBe('MISS');
    const answers = oneMiss.json as { id: number; result: unknown }[];
    expect(answers.map((a) => a.id)).toEqual([0, 1]);
    expect(answers[1]!.result).toEqual(await node.call('eth_getTransactionByHash', [tx], ctx));
    const none = await post(rpc, batch([['eth_blockNumber', []], ['eth_chainId', []]]));
    expect(none.headers.get('x-cache')).toBeNull();
  });

  it('behavior: /metrics shows the cache\'s hits, misses, bytes and entries', async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const { hits, misses, bytes, entries } = cache.stats();
    expect(text).toContain(`tracehook_cache_hits_total{network="mainnet",method="trace_transaction"} 3`);
    expect(text).toContain(`tracehook_cache_misses_total{network="mainnet",method="trace_transaction"} 1`);
    expect(text).toContain(`tracehook_cache_bytes{network="mainnet"} ${bytes}`);
    expect(text).toContain(`tracehook_cache_entries{network="mainnet"} ${entries}`);
    expect(hits).toBe(4);
    expect(misses).toBe(3);
    if (fastPath) expect(text).toMatch(/tracehook_http_fast_path_requests_total [1-9]/);
    else expect(text).toContain('tracehook_http_fast_path_requests_total 0\n');
  });
});
