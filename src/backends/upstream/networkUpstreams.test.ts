// A network of real anvil upstreams running the same chain (anvilFleet.ts): the probed capability
// table against what anvil 1.7.1 answers, zero failed requests while one member is SIGKILLed and
// traffic back on it once it returns, lagging and wrong-chain members avoided, reorg events, tag
// pinning per request, and a write never sent twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { MethodNotFoundError } from '../../rpc/errors.js';
import { freePort } from '../../testing/startAnvil.js';
import { createNetworkUpstreams, type ChainEvent, type NetworkUpstreams } from './networkUpstreams.js';
import { spawnFleetAnvil, startAnvilFleet, type AnvilFleet } from './testing/anvilFleet.js';
import { startMisbehavingUpstream } from './testing/misbehavingUpstream.js';

const logger = pino({ level: 'silent' });
const ctx = () => ({ requestId: 'test', signal: new AbortController().signal });
const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const fast = { headPollMs: 50, probeIntervalMs: 60_000, attemptTimeoutMs: 2_000, probeTimeoutMs: 5_000, maxCooldownMs: 1_000 };

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let fleet: AnvilFleet;
let net: NetworkUpstreams;
const rowOf = (i: number) => net.status()[i]!;

beforeAll(async () => {
  fleet = await startAnvilFleet(3);
  await fleet.mine({ txs: 2 });
  await fleet.mine();
  net = createNetworkUpstreams({ network: 'LOCAL_FLEET', upstreams: fleet.urls.map((url) => ({ url })), logger, ...fast });
  await net.start();
}, 30_000);
afterAll(async () => {
  net?.close();
  await fleet?.close();
});

describe('network upstreams over an anvil fleet', () => {
  it('default: probes each upstream; the table matches what anvil 1.7.1 really answers', () => {
    expect(net.chainId()).toBe(31337n);
    expect(net.isReady()).toBe(true);
    for (const row of net.status()) {
      expect(row).toMatchObject({ state: 'healthy', chainId: '31337', clientVersion: 'anvil/v1.7.1', archive: true, stateFrom: '0', origin: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
      expect(row.methods).toEqual({
        trace_transaction: true, trace_block: true, trace_filter: true, trace_replayBlockTransactions: true,
        trace_get: false, trace_call: false, trace_callMany: false, trace_replayTransaction: false, trace_rawTransaction: false,
        debug_traceTransaction: true, debug_traceCall: true, debug_traceBlockByNumber: true, debug_traceBlockByHash: true,
      });
      expect(row.tracers).toEqual({ callTracer: true, prestateTracer: true, flatCallTracer: false, structLogger: true });
      expect(row.traceTypes).toEqual({ trace: true, stateDiff: true, vmTrace: true });
    }
  });

  it('error: a method or tracer no upstream has is -32601 naming it and the network', async () => {
    const call = { from: ADDRESS, to: ADDRESS };
    await expect(net.backend.call('trace_call', [call, ['trace'], 'latest'], ctx())).rejects.toThrow(MethodNotFoundError);
    await expect(net.backend.call('trace_call', [call, ['trace'], 'latest'], ctx())).rejects.toThrow(/trace_call.*not supported on network LOCAL_FLEET/);
    const [hash] = ((await net.backend.call('eth_getBlockByNumber', ['0x1', false], ctx())) as { transactions: string[] }).transactions;
    await expect(net.backend.call('debug_traceTransaction', [hash, { tracer: 'flatCallTracer' }], ctx())).rejects.toThrow(/debug_traceTransaction with tracer flatCallTracer is not supported on network LOCAL_FLEET/);
    expect(await net.backend.call('trace_transaction', [hash], ctx())).toHaveLength(1);
    expect(await net.backend.call('debug_traceTransaction', [hash, { tracer: 'callTracer' }], ctx())).toMatchObject({ type: 'CALL' });
  });

  it('behavior: follows the head; single calls pass tags through, a batch sees one head pinned at least at the newest block', async () => {
    const { number } = await fleet.mine();
    await until(() => net.head()?.number === number);
    expect(await net.backend.call('eth_blockNumber', [], ctx())).toBe(`0x${number.toString(16)}`);
    const next = await fleet.mine();
    // Before the pool polls: a single call asks the node, so it already sees the new block.
    expect(await net.backend.call('eth_getBlockByNumber', ['latest', false], ctx())).toMatchObject({ number: `0x${next.number.toString(16)}` });
    await until(() => net.head()?.number === next.number);
    expect(net.canonicalHash(next.number)).toBe(next.hash);
    const third = await fleet.mine();
    // A batch right after a block (before the pool polls it) reads at that block, all calls at one head.
    const outcomes = await net.backend.callBatch!(
      [
        { method: 'eth_blockNumber', params: [] },
        { method: 'eth_getBlockByNumber', params: ['latest', false] },
        { method: 'eth_getBalance', params: [ADDRESS, 'latest'] },
      ],
      ctx(),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const [bn, block] = outcomes.map((o) => (o.ok ? o.result : undefined)) as [string, { number: string }];
    expect(block.number).toBe(bn);
    expect(BigInt(bn)).toBe(third.number);
  });

  it('behavior: zero failed requests while a member is SIGKILLed mid-load; traffic returns to it after restart', async () => {
    let failures = 0;
    let done = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          await net.backend.call('eth_getBalance', [ADDRESS, 'latest'], ctx());
          done++;
        } catch {
          failures++;
        }
      }
    };
    const workers = Array.from({ length: 8 }, worker);
    await until(() => done > 50);
    await fleet.kill(1);
    const atKill = done;
    await until(() => done > atKill + 200);
    expect(rowOf(1).state).not.toBe('healthy');
    await fleet.restart(1);
    const before = rowOf(1).requests;
    await until(() => rowOf(1).requests > before + 20, 10_000);
    stop = true;
    await Promise.all(workers);
    expect(failures).toBe(0);
    expect(rowOf(1).state).toBe('healthy');
  }, 30_000);

  it('behavior: a lagging member is avoided for head reads and used again once it catches up', async () => {
    for (let i = 0; i < 3; i++) await fleet.mine({ skip: [2] });
    const head = BigInt(fleet.history.length);
    await until(() => net.head()?.number === head && rowOf(2).state === 'lagging');
    const before = rowOf(2).requests;
    for (let i = 0; i < 30; i++) expect(await net.backend.call('eth_getBlockByNumber', ['latest', false], ctx())).toMatchObject({ number: `0x${head.toString(16)}` });
    expect(rowOf(2).requests).toBe(before);
    expect(rowOf(2).headLagBlocks).toBe(3);
    await fleet.catchUp(2);
    await until(() => rowOf(2).state === 'healthy');
  });

  it('behavior: a jump of many blocks between polls fills the window without a reorg', async () => {
    const events: ChainEvent[] = [];
    const off = net.onChain((e) => events.push(e));
    const from = BigInt(fleet.history.length) + 1n;
    let last = { number: 0n, hash: '' };
    for (let i = 0; i < 40; i++) last = await fleet.mine({ txs: 0 });
    await until(() => net.head()?.hash === last.hash);
    off();
    expect(events.filter((e) => e.kind === 'reorg')).toEqual([]);
    for (let n = from; n <= last.number; n++) expect(net.canonicalHash(n)).toBe(await fleet.blockHash(0, n));
  });

  it('behavior: a reorg on all members emits one reorg event from the first replaced block', async () => {
    const events: ChainEvent[] = [];
    const off = net.onChain((e) => events.push(e));
    const base = BigInt(fleet.history.length);
    const revert = await fleet.snapshot();
    await fleet.mine();
    const replaced = await fleet.mine();
    await until(() => net.head()?.hash === replaced.hash);
    await revert();
    await fleet.mine();
    await fleet.mine();
    const winner = await fleet.mine();
    await until(() => net.head()?.hash === winner.hash);
    off();
    const reorgs = events.filter((e) => e.kind === 'reorg');
    expect(reorgs).toEqual([{ kind: 'reorg', fromNumber: base + 1n, head: expect.objectContaining({ number: expect.any(BigInt) }) }]);
    expect(net.canonicalHash(base + 2n)).toBe(await fleet.blockHash(0, base + 2n));
    expect(net.finalized()).toBe(0n);
  });
});

describe('network upstreams: wrong chain and writes', () => {
  it('error: a wrong-chain member is taken out and never routed to', async () => {
    const wrong = await spawnFleetAnvil(await freePort(), ['--chain-id', '999']);
    const n = createNetworkUpstreams({ network: 'MIXED', chainId: 31337n, upstreams: [{ url: wrong.url, weight: 100 }, { url: fleet.urls[0]! }], logger, ...fast });
    try {
      await n.start();
      expect(n.status()[0]).toMatchObject({ state: 'wrong-chain', chainId: '999' });
      for (let i = 0; i < 20; i++) expect(await n.backend.call('eth_chainId', [], ctx())).toBe('0x7a69');
      expect(n.status()[0]!.requests).toBe(0);
    } finally {
      n.close();
      await wrong.stop();
    }
  });

  it('behavior: a write that may have reached a node is not sent again', async () => {
    const a = await startMisbehavingUpstream({ target: fleet.urls[0]!, mode: 'reset', affects: (m) => m === 'eth_sendRawTransaction' });
    const b = await startMisbehavingUpstream({ target: fleet.urls[0]!, mode: 'reset', affects: (m) => m === 'eth_sendRawTransaction' });
    const n = createNetworkUpstreams({ network: 'WRITES', upstreams: [{ url: a.url }, { url: b.url }], logger, ...fast });
    try {
      await n.start();
      await expect(n.backend.call('eth_sendRawTransaction', ['0x02f86b'], ctx())).rejects.toThrow(/connection/);
      expect((a.seen.get('eth_sendRawTransaction') ?? 0) + (b.seen.get('eth_sendRawTransaction') ?? 0)).toBe(1);
      // A read on the same fleet fails over instead.
      a.affects = b.affects = (m) => m === 'eth_getBalance';
      b.mode = 'proxy';
      for (let i = 0; i < 5; i++) expect(await n.backend.call('eth_getBalance', [ADDRESS, 'latest'], ctx())).toMatch(/^0x/);
    } finally {
      n.close();
      await a.close();
      await b.close();
    }
  });
});

describe('network upstreams: capability and block aware routing', () => {
  it('behavior: old state goes to archive members, never to a pruned one', async () => {
    const pruned = await startAnvilFleet(2, { memberArgs: (i) => (i === 0 ? ['--prune-history', '5'] : []) });
    const n = createNetworkUpstreams({ network: 'PRUNED', upstreams: pruned.urls.map((url, i) => ({ url, weight: i === 0 ? 100 : 1 })), logger, ...fast });
    // Probed while young, the pruned member passes for an archive node: its "block out of range"
    // answers then fail over instead of reaching the caller.
    const counting = await startMisbehavingUpstream({ target: pruned.urls[0]!, mode: 'proxy' });
    const early = createNetworkUpstreams({ network: 'EARLY', upstreams: [{ url: counting.url, weight: 100 }, { url: pruned.urls[1]! }], logger, ...fast });
    try {
      await early.start();
      for (let i = 0; i < 24; i++) await pruned.mine({ txs: i < 2 ? 1 : 0 });
      expect(early.status()[0]!.archive).toBe(true);
      for (let i = 0; i < 5; i++) expect(await early.backend.call('eth_getBalance', [ADDRESS, '0x2'], ctx())).toBe('0x21e19e0c9bab2400002');
      expect(counting.seen.get('eth_getBalance')).toBeGreaterThan(1);
      await n.start();
      expect(n.status().map((r) => [r.archive, r.stateFrom])).toEqual([[false, '20'], [true, '0']]);
      const before = n.status()[0]!.requests;
      for (let i = 0; i < 10; i++) expect(await n.backend.call('eth_getBalance', [ADDRESS, '0x2'], ctx())).toBe('0x21e19e0c9bab2400002');
      expect(n.status()[0]!.requests).toBe(before);
      // Recent state still goes to the (heavier) pruned member.
      for (let i = 0; i < 10; i++) await n.backend.call('eth_getBalance', [ADDRESS, 'latest'], ctx());
      expect(n.status()[0]!.requests).toBeGreaterThan(before);
    } finally {
      n.close();
      early.close();
      await counting.close();
      await pruned.close();
    }
  }, 20_000);

  it('behavior: a -32601 from an upstream fails over and re-probes it; the new table keeps it away', async () => {
    const flaky = await startMisbehavingUpstream({ target: fleet.urls[0]!, mode: 'proxy' });
    const n = createNetworkUpstreams({ network: 'REPROBE', upstreams: [{ url: flaky.url, weight: 1_000_000 }, { url: fleet.urls[0]! }], logger, ...fast, minReprobeMs: 50 });
    try {
      await n.start();
      expect(n.status()[0]!.methods.trace_block).toBe(true);
      flaky.mode = 'methodNotFound';
      flaky.affects = (m) => m === 'trace_block';
      await new Promise((r) => setTimeout(r, 60));
      const chainIdsBefore = flaky.seen.get('eth_chainId') ?? 0;
      expect(await n.backend.call('trace_block', ['0x1'], ctx())).toHaveLength(2);
      expect(flaky.seen.get('trace_block')).toBe(2); // its probe, then the call that got -32601
      await until(() => (flaky.seen.get('eth_chainId') ?? 0) > chainIdsBefore && n.status()[0]!.probedAt !== undefined && n.status()[0]!.methods.trace_block === false);
      for (let i = 0; i < 5; i++) expect(await n.backend.call('trace_block', ['0x1'], ctx())).toHaveLength(2);
      expect(n.status()[0]!.state).toBe('healthy');
    } finally {
      n.close();
      await flaky.close();
    }
  });
});
