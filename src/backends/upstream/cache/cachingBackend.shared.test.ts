// The cache's shared tier (Redis at 127.0.0.1:6379, a key prefix per run, removed at the end) between
// two caching backends standing for two gateways over one real anvil: a trace one computed is
// served to the other without reaching its node, in every trace form; a non-final entry whose block
// the reader's view replaced (a reorg) is not served; a damaged value is never served; the byte
// budget holds; Redis on a closed port, hanging without an answer, stalled after its handshake, or
// stopped mid-run (a private redis-server) fails no call and stalls none; once back, it is used again.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, freePort, type AnvilProcess } from '../../../testing/startAnvil.js';
import type { Backend } from '../../backend.js';
import type { RpcContext } from '../../embedded/methodTable.js';
import type { Hex } from '../../../rpc/hex.js';
import { rawJsonToValue } from '../../../rpc/rawJson.js';
import { createUpstreamBackend, type UpstreamBackend } from '../upstreamBackend.js';
import { createCachingBackend, type CachingBackend } from './cachingBackend.js';
import { createCacheMetrics } from './cacheMetrics.js';
import { createRedisSharedCache, type RedisSharedCache } from './redisSharedCache.js';
import { createTestChainView, type TestChainView } from './testing/testChainView.js';
import { startStallingRedis } from './testing/stallingRedis.js';
import { createMetricsRegistry } from '../../../gateway/ops/metricsRegistry.js';
import { TEST_REDIS_URL, redisReachable } from '../../../testing/testRedis.js';

const REDIS_URL = TEST_REDIS_URL;
/** A private server for the stop-and-start case (the shared one at 6379 is never stopped). */
const REDIS_SERVER = '/usr/bin/redis-server';
const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

const reachable = await redisReachable();
if (!reachable) console.warn(`\n!!!!! shared trace cache test SKIPPED: no Redis at ${REDIS_URL} (set TRACEHOOK_TEST_REDIS_URL) !!!!!\n`);

const prefix = `tracehook-test-${randomBytes(4).toString('hex')}:`;
let anvil: AnvilProcess;
let node: UpstreamBackend;
let admin: Redis;
const plain: RpcContext = { requestId: 'test', signal: new AbortController().signal };
const direct = (method: string, params: unknown[]) => node.call(method, params, plain);

/** The real node behind a pass-through that counts what reaches it, by method. */
function counted(inner: Backend) {
  const sent: string[] = [];
  const backend: Backend = {
    name: inner.name,
    handles: () => true,
    call: (method, params, ctx) => {
      sent.push(method);
      return inner.call(method, params, ctx);
    },
  };
  return { backend, sent };
}

function noting() {
  const notes: boolean[] = [];
  const ctx: RpcContext = { requestId: 'test', signal: new AbortController().signal, noteCache: (hit) => notes.push(hit) };
  return { ctx, notes };
}

const send = async (value: bigint): Promise<Hex> => {
  const tx = (await direct('eth_sendTransaction', [{ from: FROM, to: TO, value: `0x${value.toString(16)}` }])) as Hex;
  for (let i = 0; i < 200 && (await direct('eth_getTransactionReceipt', [tx])) === null; i++) await new Promise((r) => setTimeout(r, 10));
  return tx;
};
const blockOf = async (tx: Hex) => (await direct('eth_getTransactionReceipt', [tx])) as { blockHash: Hex; blockNumber: Hex };

const opened: { close(): void | Promise<void> }[] = [];
afterEach(async () => {
  for (const o of opened.splice(0).reverse()) await o.close();
});

/** A gateway's cache: its own LRU, the shared tier, and a node it reaches through a counter. */
function gatewayCache(shared: RedisSharedCache, view: TestChainView, metrics = createCacheMetrics()) {
  const { backend, sent } = counted(node);
  const cache: CachingBackend = createCachingBackend(backend, { chain: view, maxBytes: 1 << 20, network: 'ANVIL', metrics, shared: shared.forNetwork('ANVIL', 31337n) });
  opened.push(cache);
  return { cache, sent };
}
async function sharedCache(options: { url?: string; maxBytes?: number; maxEntryBytes?: number; timeoutMs?: number; metrics?: ReturnType<typeof createCacheMetrics> } = {}): Promise<RedisSharedCache> {
  const shared = createRedisSharedCache({ url: options.url ?? REDIS_URL, prefix, maxBytes: options.maxBytes, maxEntryBytes: options.maxEntryBytes, timeoutMs: options.timeoutMs, metrics: options.metrics });
  opened.push(shared);
  if (!options.url) await shared.connected();
  return shared;
}
/** Resolves once Redis holds `count` entries of this run (writes are fire and forget). */
async function entries(count: number): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const keys = await admin.keys(`${prefix}tc:ANVIL:*`);
    if (keys.length >= count) return keys;
    await new Promise((r) => setTimeout(r, 20));
  }
  return admin.keys(`${prefix}tc:ANVIL:*`);
}

let txA: Hex;
let txB: Hex;
describe.skipIf(!reachable)('the shared trace tier (real Redis, real anvil)', () => {
  beforeAll(async () => {
    admin = new Redis(REDIS_URL);
    anvil = await startAnvil();
    node = createUpstreamBackend({ url: anvil.url, name: 'anvil' });
    txA = await send(1n);
    txB = await send(2n);
  }, 30_000);
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
    node?.close();
    await anvil?.stop();
  });
  afterEach(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
  });

  it('default: a trace computed by one gateway is served to another without reaching its node, in every trace form', async () => {
    const shared = await sharedCache();
    const viewA = createTestChainView(node);
    const viewB = createTestChainView(node);
    await Promise.all([viewA.refresh(), viewB.refresh()]);
    const { blockHash, blockNumber } = await blockOf(txB);
    viewA.setFinalized(BigInt(blockNumber));
    viewB.setFinalized(BigInt(blockNumber));
    const metricsB = createCacheMetrics();
    const a = gatewayCache(shared, viewA);
    const b = gatewayCache(shared, viewB, metricsB);
    const calls: [string, unknown[]][] = [
      ['trace_transaction', [txB]],
      ['trace_block', [blockNumber]],
      ['debug_traceTransaction', [txB, { tracer: 'callTracer' }]],
      ['debug_traceTransaction', [txA]],
      ['debug_traceBlockByHash', [blockHash, { tracer: 'callTracer' }]],
      ['debug_traceBlockByNumber', [blockNumber, { tracer: 'prestateTracer' }]],
    ];
    for (const [method, params] of calls) await a.cache.call(method, params, plain);
    await entries(calls.length);
    for (const [method, params] of calls) {
      const { ctx, notes } = noting();
      expect(rawJsonToValue(await b.cache.call(method, params, ctx)), method).toEqual(await direct(method, params));
      expect(notes, method).toEqual([true]);
    }
    expect(b.sent).toEqual([]);
    // B's process cache now holds them: served again without Redis.
    expect(b.cache.stats().entries).toBe(calls.length);
    const registry = createMetricsRegistry();
    metricsB.bind(registry);
    expect(registry.render()).toContain(`tracehook_shared_cache_lookups_total{network="ANVIL",outcome="hit"} ${calls.length}`);
    // Only traces go to the shared tier: a receipt is this process's alone.
    await a.cache.call('eth_getTransactionReceipt', [txB], plain);
    await b.cache.call('eth_getTransactionReceipt', [txB], plain);
    expect(b.sent).toEqual(['eth_getTransactionReceipt']);
  });

  it('behavior: a non-final trace is not served once the reader\'s view replaced its block (reorg); the new answer replaces it', async () => {
    const shared = await sharedCache();
    const viewA = createTestChainView(node);
    await viewA.refresh();
    const revert = (await direct('evm_snapshot', [])) as Hex;
    const tx = await send(5n);
    await viewA.refresh();
    const a = gatewayCache(shared, viewA);
    const before = rawJsonToValue(await a.cache.call('trace_transaction', [tx], plain)) as Array<{ blockHash: Hex }>;
    await entries(1);
    // The chain goes back and mines another block at that height; the same transaction lands elsewhere.
    const raw = (await direct('eth_getRawTransactionByHash', [tx])) as Hex;
    await direct('evm_revert', [revert]);
    await direct('evm_mine', []);
    expect(await direct('eth_sendRawTransaction', [raw])).toBe(tx);
    for (let i = 0; i < 200 && (await direct('eth_getTransactionReceipt', [tx])) === null; i++) await new Promise((r) => setTimeout(r, 10));
    const viewB = createTestChainView(node);
    await viewB.refresh();
    const metricsB = createCacheMetrics();
    const b = gatewayCache(shared, viewB, metricsB);
    const after = rawJsonToValue(await b.cache.call('trace_transaction', [tx], plain)) as Array<{ blockHash: Hex }>;
    expect(b.sent).toEqual(['trace_transaction']);
    expect(after[0]!.blockHash).not.toBe(before[0]!.blockHash);
    expect(after).toEqual(await direct('trace_transaction', [tx]));
    const registry = createMetricsRegistry();
    metricsB.bind(registry);
    expect(registry.render()).toContain('tracehook_shared_cache_lookups_total{network="ANVIL",outcome="stale"} 1');
    // B's fresh answer replaced the stale one: a third gateway on B's chain is served from Redis.
    await new Promise((r) => setTimeout(r, 100));
    const c = gatewayCache(shared, viewB);
    expect(rawJsonToValue(await c.cache.call('trace_transaction', [tx], plain))).toEqual(after);
    expect(c.sent).toEqual([]);
  });

  it('behavior: a damaged or foreign value in Redis is never served', async () => {
    const shared = await sharedCache();
    const view = createTestChainView(node);
    await view.refresh();
    const a = gatewayCache(shared, view);
    await a.cache.call('trace_transaction', [txA], plain);
    const [key] = await entries(1);
    const stored = (await admin.get(key!))!;
    const otherHash = `0x${'ab'.repeat(32)}`;
    for (const bad of [stored.slice(0, stored.length - 5), stored.replace(/^v1\|(\d+)\|0x[0-9a-f]{64}/, `v1|$1|${otherHash}`), `v9|${stored.slice(3)}`, 'garbage']) {
      await admin.set(key!, bad);
      const b = gatewayCache(shared, view);
      expect(rawJsonToValue(await b.cache.call('trace_transaction', [txA], plain))).toEqual(await direct('trace_transaction', [txA]));
      expect(b.sent).toEqual(['trace_transaction']);
    }
  });

  it('behavior: the byte budget bounds what Redis holds; writes past it are skipped and counted', async () => {
    const metrics = createCacheMetrics();
    // Five answers of one size (the same call tracer under five spellings of its config), room for two.
    const configs = [{ tracer: 'callTracer' }, ...[{}, { onlyTopCall: false }, { withLog: false }, { onlyTopCall: false, withLog: false }].map((tracerConfig) => ({ tracer: 'callTracer', tracerConfig }))];
    const size = JSON.stringify(await direct('debug_traceTransaction', [txA, configs[0]])).length + `v1|1|0x${'0'.repeat(64)}|c|`.length + `${prefix}tc:ANVIL:31337:`.length + 43;
    const shared = await sharedCache({ maxBytes: Math.floor(size * 2.5), maxEntryBytes: size * 2, metrics });
    const view = createTestChainView(node);
    await view.refresh();
    const a = gatewayCache(shared, view, metrics);
    for (const config of configs) await a.cache.call('debug_traceTransaction', [txA, config], plain);
    await new Promise((r) => setTimeout(r, 200));
    const keys = await admin.keys(`${prefix}tc:ANVIL:*`);
    expect(keys).toHaveLength(2);
    const registry = createMetricsRegistry();
    metrics.bind(registry);
    expect(registry.render()).toMatch(/tracehook_shared_cache_writes_total\{network="ANVIL",outcome="full"\} 3/);
    for (const key of keys) expect(await admin.pttl(key)).toBeGreaterThan(0);
  });

  it('error: Redis on a closed port fails no call and adds no wait', async () => {
    const metrics = createCacheMetrics();
    const shared = await sharedCache({ url: `redis://127.0.0.1:${await freePort()}`, metrics });
    const view = createTestChainView(node);
    await view.refresh();
    const a = gatewayCache(shared, view, metrics);
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect(rawJsonToValue(await a.cache.call('trace_transaction', [txB], noting().ctx))).toEqual(await direct('trace_transaction', [txB]));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(a.sent).toEqual(['trace_transaction']);
    const registry = createMetricsRegistry();
    metrics.bind(registry);
    expect(registry.render()).toContain('tracehook_shared_cache_lookups_total{network="ANVIL",outcome="error"} 1');
  });

  it('error: a Redis that accepts connections and never answers costs each miss at most its bound', async () => {
    const sockets = new Set<Socket>();
    const hanging: Server = createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    opened.push({ close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), hanging.close(() => r()))) });
    const metrics = createCacheMetrics();
    const shared = await sharedCache({ url: `redis://127.0.0.1:${(hanging.address() as AddressInfo).port}`, timeoutMs: 100, metrics });
    const view = createTestChainView(node);
    await view.refresh();
    const a = gatewayCache(shared, view, metrics);
    for (const tx of [txA, txB]) {
      const started = Date.now();
      expect(rawJsonToValue(await a.cache.call('debug_traceTransaction', [tx, { tracer: 'callTracer' }], plain))).toEqual(await direct('debug_traceTransaction', [tx, { tracer: 'callTracer' }]));
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    expect(a.sent.filter((m) => m === 'debug_traceTransaction')).toHaveLength(2);
  });

  it.skipIf(!existsSync(REDIS_SERVER))('error: a private Redis stopped mid-run: calls are computed at once; once it is back, traces are shared again', async () => {
    const port = await freePort();
    const startRedis = async (): Promise<ChildProcess> => {
      const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      const probe = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      for (let i = 0; i < 100; i++) {
        if (await probe.connect().then(() => probe.ping(), () => undefined)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      probe.disconnect();
      return child;
    };
    let redis = await startRedis();
    opened.push({ close: () => void redis.kill('SIGKILL') });
    const metrics = createCacheMetrics();
    const shared = createRedisSharedCache({ url: `redis://127.0.0.1:${port}`, prefix, metrics });
    opened.push(shared);
    await shared.connected();
    const view = createTestChainView(node);
    await view.refresh();
    const a = gatewayCache(shared, view, metrics);
    await a.cache.call('trace_transaction', [txA], plain);
    await new Promise((r) => setTimeout(r, 100));
    const first = gatewayCache(shared, view);
    await first.cache.call('trace_transaction', [txA], plain);
    expect(first.sent).toEqual([]);

    // Stopped: every call is computed, without waiting for Redis.
    redis.kill('SIGKILL');
    await new Promise((r) => redis.once('exit', r));
    for (const tx of [txA, txB]) {
      const b = gatewayCache(shared, view, metrics);
      const started = Date.now();
      expect(rawJsonToValue(await b.cache.call('trace_transaction', [tx], plain))).toEqual(await direct('trace_transaction', [tx]));
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(b.sent).toEqual(['trace_transaction']);
    }
    // Back (empty, as a restarted Redis without persistence is): the client reconnects, and what one computes the next is served.
    redis = await startRedis();
    await shared.connected();
    const writer = gatewayCache(shared, view, metrics);
    await writer.cache.call('trace_transaction', [txB], plain);
    await new Promise((r) => setTimeout(r, 100));
    const reader = gatewayCache(shared, view, metrics);
    await reader.cache.call('trace_transaction', [txB], plain);
    expect(reader.sent).toEqual([]);
  }, 30_000);

  it('error: a Redis that completes its handshake, then never answers a read or write: each miss waits its bound, then is computed', async () => {
    const stalled = await startStallingRedis();
    opened.push(stalled);
    const metrics = createCacheMetrics();
    const shared = createRedisSharedCache({ url: stalled.url, prefix, timeoutMs: 100, metrics });
    opened.push(shared);
    await shared.connected();
    const view = createTestChainView(node);
    await view.refresh();
    const a = gatewayCache(shared, view, metrics);
    for (const tx of [txA, txB]) {
      const started = Date.now();
      expect(rawJsonToValue(await a.cache.call('trace_transaction', [tx], plain))).toEqual(await direct('trace_transaction', [tx]));
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(90);
      expect(took).toBeLessThan(1_000);
    }
    await new Promise((r) => setTimeout(r, 150));
    const registry = createMetricsRegistry();
    metrics.bind(registry);
    const text = registry.render();
    expect(text).toContain('tracehook_shared_cache_lookups_total{network="ANVIL",outcome="timeout"} 2');
    expect(text).toContain('tracehook_shared_cache_writes_total{network="ANVIL",outcome="error"} 2');
    expect(stalled.stalled.get('MGET')).toBe(2);
  });
});
