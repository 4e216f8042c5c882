// The shared trace cache (Redis) between two gateways' caches over one anvil: gateway A computes the
// struct-log and callTracer traces of ERC-20 transfers (final blocks), then gateway B, whose own
// cache is empty, reads them: from Redis, and for comparison from the node (a cache without the
// shared tier). Sequential calls, so the figure is latency per call; the caches are the service's
// own (from source, through tsx), the node is anvil on the same machine.
//
//   npx tsx bench/sharedTraceCache.bench.ts [--txs 200]
//
// Needs Redis at TRACEHOOK_TEST_REDIS_URL (default redis://127.0.0.1:6379); keys under a per-run
// prefix, deleted at the end.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { startAnvil } from '../src/testing/startAnvil.js';
import { createUpstreamBackend } from '../src/backends/upstream/upstreamBackend.js';
import { createCachingBackend } from '../src/backends/upstream/cache/cachingBackend.js';
import { createRedisSharedCache } from '../src/backends/upstream/cache/redisSharedCache.js';
import { createTestChainView } from '../src/backends/upstream/cache/testing/testChainView.js';
import type { RpcContext } from '../src/backends/embedded/methodTable.js';
import { RawJson } from '../src/rpc/rawJson.js';
import { numberArg, signedErc20Transactions } from './erc20Workload.js';

const TXS = numberArg('txs', 200);
const REDIS_URL = process.env.TRACEHOOK_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ctx: RpcContext = { requestId: 'bench', signal: new AbortController().signal };

async function main(): Promise<void> {
  // Struct logs need anvil's step tracing (without it anvil answers an empty list).
  const anvil = await startAnvil(['--steps-tracing']);
  const node = createUpstreamBackend({ url: anvil.url, name: 'anvil' });
  const hashes: string[] = [];
  for (const raw of await signedErc20Transactions(TXS)) hashes.push((await node.call('eth_sendRawTransaction', [raw], ctx)) as string);
  hashes.shift();
  for (let i = 0; i < 200 && (await node.call('eth_getTransactionReceipt', [hashes[hashes.length - 1]], ctx)) === null; i++) await new Promise((r) => setTimeout(r, 10));
  const view = createTestChainView(node);
  await view.refresh();
  view.setFinalized(BigInt((await node.call('eth_blockNumber', [], ctx)) as string));
  const prefix = `tracehook-bench-${randomBytes(4).toString('hex')}:`;
  const shared = createRedisSharedCache({ url: REDIS_URL, prefix });
  await shared.connected();
  const cache = (withShared: boolean) =>
    createCachingBackend(node, { chain: view, maxBytes: 512 << 20, network: 'ANVIL', shared: withShared ? shared.forNetwork('ANVIL', 31337n) : undefined });

  const forms: [string, (hash: string) => unknown[]][] = [
    ['debug_traceTransaction (struct logs)', (h) => [h]],
    ['debug_traceTransaction (callTracer)', (h) => [h, { tracer: 'callTracer' }]],
  ];
  console.log(`${TXS} ERC-20 transfers, sequential calls, ms per call (mean)`);
  console.log('| trace | A computes (node) | B from Redis | B from the node | answer size |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, params] of forms) {
    const method = 'debug_traceTransaction';
    const timed = async (backend: ReturnType<typeof cache>) => {
      const started = performance.now();
      let bytes = 0;
      for (const h of hashes) {
        const result = await backend.call(method, params(h), ctx);
        bytes += result instanceof RawJson ? result.text.length : JSON.stringify(result).length;
      }
      return { ms: (performance.now() - started) / hashes.length, bytes: bytes / hashes.length };
    };
    const a = cache(true);
    const computed = await timed(a);
    await new Promise((r) => setTimeout(r, 500));
    const b = cache(true);
    const fromRedis = await timed(b);
    const stats = b.stats();
    const c = cache(false);
    const fromNode = await timed(c);
    if (stats.misses !== hashes.length || c.stats().misses !== hashes.length) throw new Error('unexpected cache state');
    console.log(`| ${name} | ${computed.ms.toFixed(2)} | ${fromRedis.ms.toFixed(2)} | ${fromNode.ms.toFixed(2)} | ${Math.round(fromRedis.bytes).toLocaleString('en')} B |`);
    for (const x of [a, b, c]) x.close();
  }
  const admin = new Redis(REDIS_URL);
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length) await admin.del(...keys);
  admin.disconnect();
  await shared.close();
  node.close();
  await anvil.stop();
}

await main();
