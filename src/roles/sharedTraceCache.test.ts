// The shared trace cache across gateway processes (issue 17 item 3): `--role all` and `--role
// gateway` on one PostgreSQL store with one Redis (a key prefix per run, removed at the end), each in
// front of the same anvil through its own counting proxy. A trace computed by gateway A is served
// by gateway B without B's node seeing the call (a final block's, and a canonical one's); after a
// reorg B does not serve the replaced block's traces; a third gateway whose Redis is connected and
// never answers a command still answers every request, well within its deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startAnvilFleet, type AnvilFleet } from '../backends/upstream/testing/anvilFleet.js';
import { startMisbehavingUpstream, type MisbehavingUpstream } from '../backends/upstream/testing/misbehavingUpstream.js';
import { startStallingRedis, type StallingRedis } from '../backends/upstream/cache/testing/stallingRedis.js';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { TEST_POSTGRES_URL, postgresReachable } from '../store/testing/openTestDatabases.js';
import { TEST_REDIS_URL, redisReachable } from '../testing/testRedis.js';
import { scratchDatabase } from '../store/testing/scratchDatabase.js';

const REDIS_URL = TEST_REDIS_URL;

const ok = (await postgresReachable()) && (await redisReachable());
if (!ok) console.warn(`\n!!!!! shared trace cache multi-process test SKIPPED: needs PostgreSQL at ${TEST_POSTGRES_URL} and Redis at ${REDIS_URL} !!!!!\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!ok)('traces shared by gateway processes through Redis', () => {
  const scratch = scratchDatabase('tracehook_tc');
  const prefix = `tracehook-test-${randomBytes(4).toString('hex')}:`;
  const dirs: string[] = [];
  const procs: TracehookProcess[] = [];
  const proxies: MisbehavingUpstream[] = [];
  let stalled: StallingRedis;
  let fleet: AnvilFleet;
  let admin: Redis;
  let a: TracehookProcess;
  let b: TracehookProcess;
  let c: TracehookProcess;
  let proxyA: MisbehavingUpstream;
  let proxyB: MisbehavingUpstream;
  let proxyC: MisbehavingUpstream;
  const txs: string[] = [];

  const spawnGateway = async (role: 'all' | 'gateway', proxy: MisbehavingUpstream, redisUrl: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), `tracehook-tc-${role}-`));
    dirs.push(dataDir);
    const p = await spawnTracehook({
      dataDir,
      args: ['--role', role, '--database-url', scratch.url, '--upstream', proxy.url, '--redis-url', redisUrl, '--redis-prefix', prefix, '--trace-workers', '0'],
    });
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    admin = new Redis(REDIS_URL);
    await scratch.create();
    fleet = await startAnvilFleet(1);
    for (let i = 0; i < 3; i++) {
      const { number } = await fleet.mine({ txs: 1 });
      const block = (await rpcAt(fleet.urls[0]!, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as { transactions: string[] };
      txs.push(block.transactions[0]!);
    }
    // Deep enough that anvil calls the first blocks finalized (it finalizes 64 blocks behind its head).
    for (let i = 0; i < 70; i++) await fleet.mine({ txs: 0 });
    stalled = await startStallingRedis();
    [proxyA, proxyB, proxyC] = await Promise.all([0, 1, 2].map(() => startMisbehavingUpstream({ target: fleet.urls[0]!, mode: 'proxy' })));
    proxies.push(proxyA!, proxyB!, proxyC!);
    // Started together: the first to take the migration lock applies the migrations, the others wait.
    [a, b, c] = await Promise.all([spawnGateway('all', proxyA!, REDIS_URL), spawnGateway('gateway', proxyB!, REDIS_URL), spawnGateway('gateway', proxyC!, stalled.url)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await Promise.all(proxies.map((p) => p.close()));
    await stalled?.close();
    await fleet?.close();
    await scratch.drop();
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  /** Until the gateway's view of the network has this head (its follower polls every second). */
  const seesHead = async (g: TracehookProcess, hash: string) => {
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${g.baseUrl}/api/upstreams`, { headers: { 'x-service-token': g.authToken } });
      const { data } = (await res.json()) as { data: Array<{ head: { hash: string } | null; finalized: string | null }> };
      if (data[0]?.head?.hash === hash) return data[0];
      await sleep(100);
    }
    throw new Error(`gateway never saw head ${hash}`);
  };

  it('behavior: a trace computed by one gateway is served by another without its node; not across a reorg', async () => {
    const head = await fleet.blockHash(0, BigInt(fleet.history.length));
    const viewA = await seesHead(a, head!);
    await seesHead(b, head!);
    expect(BigInt(viewA.finalized!)).toBeGreaterThanOrEqual(3n);

    // Final blocks: both trace families, computed on A, served by B from Redis. (Counts are
    // differences: each node was also asked for traces by the start-up probe.)
    const seen = (proxy: MisbehavingUpstream, method: string) => proxy.seen.get(method) ?? 0;
    const startA = { trace: seen(proxyA, 'trace_transaction'), debug: seen(proxyA, 'debug_traceTransaction') };
    const startB = { trace: seen(proxyB, 'trace_transaction'), debug: seen(proxyB, 'debug_traceTransaction') };
    const calls: [string, unknown[]][] = [
      ['trace_transaction', [txs[0]]],
      ['debug_traceTransaction', [txs[1], { tracer: 'callTracer' }]],
    ];
    for (const [method, params] of calls) {
      const first = await rpc(a, method, params);
      expect(first.cache, method).toBe('MISS');
      await sleep(150);
      const shared = await rpc(b, method, params);
      expect(shared.cache, method).toBe('HIT');
      expect(shared.body, method).toEqual(first.body);
    }
    expect(seen(proxyA, 'trace_transaction')).toBe(startA.trace + 1);
    expect(seen(proxyA, 'debug_traceTransaction')).toBe(startA.debug + 1);
    expect(seen(proxyB, 'trace_transaction')).toBe(startB.trace);
    expect(seen(proxyB, 'debug_traceTransaction')).toBe(startB.debug);
    const metrics = await (await fetch(`${b.baseUrl}/metrics`, { headers: { 'x-service-token': b.authToken } })).text();
    expect(metrics).toContain('tracehook_shared_cache_lookups_total{network="CHAIN_31337",outcome="hit"} 2');

    // A block above finalized, traced on A, then replaced by a reorg: B does not serve it.
    const revert = await fleet.snapshot();
    const tip = await fleet.mine({ txs: 1 });
    const tx = ((await rpcAt(fleet.urls[0]!, 'eth_getBlockByNumber', [`0x${tip.number.toString(16)}`, false])) as { transactions: string[] }).transactions[0]!;
    await Promise.all([seesHead(a, tip.hash), seesHead(b, tip.hash)]);
    const before = await rpc(a, 'trace_transaction', [tx]);
    // (A's follower already read this block's call frames through the same cache: a hit or a miss.)
    await rpc(a, 'debug_traceBlockByHash', [tip.hash, { tracer: 'callTracer' }]);
    // Shared while canonical: B is served from Redis.
    await sleep(150);
    expect((await rpc(b, 'debug_traceBlockByHash', [tip.hash, { tracer: 'callTracer' }])).cache).toBe('HIT');
    await revert();
    const replaced = await fleet.mine({ txs: 1 });
    expect(replaced.number).toBe(tip.number);
    expect(replaced.hash).not.toBe(tip.hash);
    await seesHead(b, replaced.hash);
    const bTraceCalls = seen(proxyB, 'trace_transaction');
    const after = await rpc(b, 'trace_transaction', [tx]);
    expect(after.cache).toBe('MISS');
    expect(seen(proxyB, 'trace_transaction')).toBe(bTraceCalls + 1);
    const blockHashOf = (body: unknown) => ((body as { result: Array<{ blockHash: string }> }).result[0]!.blockHash);
    expect(blockHashOf(before.body)).toBe(tip.hash);
    expect(blockHashOf(after.body)).toBe(replaced.hash);
    // The replaced block's trace by its hash: asked of the node (which no longer has it), never served.
    const gone = await rpc(b, 'debug_traceBlockByHash', [tip.hash, { tracer: 'callTracer' }]);
    expect(gone.cache).toBe('MISS');
    expect((gone.body as { result?: unknown }).result).toBeUndefined();
    expect(await admin.keys(`${prefix}tc:*`)).not.toHaveLength(0);

    // A Redis that is connected but never answers (its compute-unit bucket and the shared cache):
    // every request still succeeds, each well within its deadline.
    const started = Date.now();
    for (const [method, params] of [...calls, ['trace_transaction', [tx]] as [string, unknown[]]]) {
      const t0 = Date.now();
      const res = await rpc(c, method, params);
      expect((res.body as { result?: unknown }).result, method).toBeDefined();
      expect(Date.now() - t0).toBeLessThan(2_000);
    }
    const hangingMetrics = await (await fetch(`${c.baseUrl}/metrics`, { headers: { 'x-service-token': c.authToken } })).text();
    expect(hangingMetrics).toMatch(/tracehook_shared_cache_lookups_total\{network="CHAIN_31337",outcome="(error|timeout)"\} [1-9]/);
    expect(stalled.stalled.get('MGET')).toBeGreaterThanOrEqual(1);
    expect(c.child.exitCode).toBeNull();
    console.info(`shared traces: B served 3 traces computed by A from Redis; 3 calls through a stalled Redis in ${Date.now() - started} ms`);
  }, 90_000);
});

async function rpcAt(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as { result?: unknown }).result;
}

async function rpc(g: TracehookProcess, method: string, params: unknown[]): Promise<{ cache: string | null; body: unknown }> {
  const res = await fetch(g.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(10_000) });
  return { cache: res.headers.get('x-cache'), body: await res.json() };
}
