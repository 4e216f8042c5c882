// Bad input from upstreams (issue 12): a small misbehaving server in front of a real anvil that
// hangs, resets, answers garbage, another request's id, the wrong chain id, a huge body or blocks
// of another fork. Each time the upstream is scored down or taken out, and the request fails over
// (or fails with a clear error) within its deadline, with memory bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { LimitExceededError, NoHealthyUpstreamError } from '../../rpc/errors.js';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { createNetworkUpstreams, type NetworkUpstreams } from './networkUpstreams.js';
import { startMisbehavingUpstream, type Misbehaviour, type MisbehavingUpstream } from './testing/misbehavingUpstream.js';

const logger = pino({ level: 'silent' });
const ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const ATTEMPT_MS = 400;
const ctx = (signal = new AbortController().signal) => ({ requestId: 'test', signal });

let anvil: AnvilProcess;
beforeAll(async () => {
  anvil = await startAnvil();
  for (let i = 0; i < 3; i++) await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}' });
}, 30_000);
afterAll(async () => anvil?.stop());

/** A network of one misbehaving upstream (weight 10^6, so it is tried first) and two good ones. */
async function withBadUpstream(mode: Misbehaviour, affects: (method: string, params: unknown) => boolean, test: (net: NetworkUpstreams, bad: MisbehavingUpstream) => Promise<void>, options: { chainId?: bigint } = {}) {
  const bad = await startMisbehavingUpstream({ target: anvil.url, mode, affects, hugeBytes: 8 * 1024 * 1024 });
  const net = createNetworkUpstreams({
    network: 'BAD_INPUT',
    chainId: options.chainId,
    upstreams: [{ url: bad.url, weight: 1_000_000 }, { url: anvil.url }, { url: anvil.url }],
    logger,
    headPollMs: 50,
    attemptTimeoutMs: ATTEMPT_MS,
    probeTimeoutMs: 5_000,
    maxResponseBytes: 1024 * 1024,
    baseCooldownMs: 5_000,
    maxCooldownMs: 5_000,
  });
  try {
    await net.start();
    await test(net, bad);
  } finally {
    net.close();
    await bad.close();
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

describe('routed backend: misbehaving upstreams', () => {
  for (const mode of ['hang', 'reset', 'garbage', 'wrongId', 'huge'] as const) {
    it(`error: an upstream that answers "${mode}" is scored down and the request fails over within its deadline`, async () => {
      await withBadUpstream(mode, (m) => m === 'eth_getTransactionCount', async (net, bad) => {
        const first = await timed(() => net.backend.call('eth_getTransactionCount', [ADDRESS, 'latest'], ctx()));
        expect(first.value).toBe('0x0');
        expect(first.ms).toBeLessThan(ATTEMPT_MS + 1_000);
        expect(bad.seen.get('eth_getTransactionCount')).toBe(1);
        const row = net.status()[0]!;
        expect(row.state).toBe('cooling');
        expect(row.failures).toBeGreaterThanOrEqual(1);
        expect(row.lastError).toMatch(mode === 'hang' ? /no answer within/ : mode === 'reset' ? /connection/ : mode === 'huge' ? /larger than the limit/ : /bad answer/);
        // While it cools down, the others take the traffic.
        for (let i = 0; i < 10; i++) expect(await net.backend.call('eth_getTransactionCount', [ADDRESS, 'latest'], ctx())).toBe('0x0');
        expect(bad.seen.get('eth_getTransactionCount')).toBe(1);
      });
    });
  }

  it('behavior: a batch goes to one upstream as a whole and fails over as a whole when it resets', async () => {
    await withBadUpstream('reset', (m) => m === 'eth_getTransactionCount', async (net, bad) => {
      const outcomes = await net.backend.callBatch!(
        [
          { method: 'eth_getBalance', params: [ADDRESS, 'latest'] },
          { method: 'eth_getTransactionCount', params: [ADDRESS, 'latest'] },
          { method: 'eth_chainId', params: [] },
          { method: 'eth_call', params: [{ to: ADDRESS, data: '0x' }, 'latest'] },
        ],
        ctx(),
      );
      expect(outcomes).toEqual([
        { ok: true, result: '0x21e19e0c9bab2400000' },
        { ok: true, result: '0x0' },
        { ok: true, result: '0x7a69' },
        { ok: true, result: '0x' },
      ]);
      // One HTTP batch reached the bad upstream (then the whole batch went elsewhere).
      expect(bad.seen.get('eth_getTransactionCount')).toBe(1);
      expect(bad.seen.get('eth_call')).toBe(1);
      expect(net.status()[0]!.state).toBe('cooling');
    });
  });

  it('behavior: huge answers are cut at the limit, so memory stays bounded', async () => {
    const bad = await startMisbehavingUpstream({ target: anvil.url, mode: 'huge', affects: (m) => m === 'eth_getCode', hugeBytes: 16 * 1024 * 1024 });
    const net = createNetworkUpstreams({ network: 'HUGE', upstreams: [{ url: bad.url }], logger, headPollMs: 50, attemptTimeoutMs: 5_000, maxResponseBytes: 1024 * 1024 });
    try {
      await net.start();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < 20; i++) await expect(net.backend.call('eth_getCode', [ADDRESS, 'latest'], ctx())).rejects.toThrow(/larger than the limit of 1048576 bytes/);
      // Each answer was 16 MiB: read whole, 20 of them would be 320 MiB of buffers and text.
      expect(bad.seen.get('eth_getCode')).toBe(20);
      expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
    } finally {
      net.close();
      await bad.close();
    }
  });

  it('error: an upstream answering the wrong chain id is taken out (expected id given, or outvoted)', async () => {
    for (const chainId of [31337n, undefined]) {
      await withBadUpstream('wrongChainId', (m) => m === 'eth_chainId', async (net) => {
        expect(net.chainId()).toBe(31337n);
        expect(net.status()[0]).toMatchObject({ state: 'wrong-chain', chainId: '1' });
        for (let i = 0; i < 5; i++) expect(await net.backend.call('eth_chainId', [], ctx())).toBe('0x7a69');
        expect(net.status()[0]!.requests).toBe(0);
      }, { chainId });
    }
  });

  it('error: an upstream serving blocks of another fork is kept out; answers stay canonical', async () => {
    await withBadUpstream('otherFork', (m) => m === 'eth_getBlockByNumber', async (net) => {
      const real = (await (await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x2",false]}' })).json()) as { result: { hash: string } };
      await new Promise((r) => setTimeout(r, 200));
      expect(net.canonicalHash(3n)).toBeDefined();
      expect(net.status()[0]!.state).toMatch(/forked|cooling/);
      for (let i = 0; i < 5; i++) expect(await net.backend.call('eth_getBlockByNumber', ['0x2', false], ctx())).toMatchObject({ hash: real.result.hash });
      expect(net.canonicalHash(2n)).toBe(real.result.hash);
    });
  });

  it('behavior: a block off the canonical chain fails over; two upstreams agreeing on it win (the view was a poll behind)', async () => {
    const two = (p: unknown) => Array.isArray(p) && p[0] === '0x2';
    // Misbehaving only once the canonical window is filled from good answers.
    await withBadUpstream('proxy', (m, p) => m === 'eth_getBlockByNumber' && two(p), async (net, bad) => {
      bad.mode = 'otherFork';
      const canonical = net.canonicalHash(2n);
      expect(canonical).toMatch(/^0x[0-9a-f]{64}$/);
      expect(net.status()[0]!.state).toBe('healthy');
      expect(await net.backend.call('eth_getBlockByNumber', ['0x2', false], ctx())).toMatchObject({ hash: canonical });
      expect(bad.seen.get('eth_getBlockByNumber')).toBeGreaterThan(0);
    });
    const a = await startMisbehavingUpstream({ target: anvil.url, mode: 'proxy', affects: (m, p) => m === 'eth_getBlockByNumber' && two(p) });
    const b = await startMisbehavingUpstream({ target: anvil.url, mode: 'proxy', affects: (m, p) => m === 'eth_getBlockByNumber' && two(p) });
    const net = createNetworkUpstreams({ network: 'STALE', upstreams: [{ url: a.url }, { url: b.url }], logger, headPollMs: 50, attemptTimeoutMs: ATTEMPT_MS, probeTimeoutMs: 5_000 });
    try {
      await net.start();
      a.mode = b.mode = 'otherFork';
      expect(net.canonicalHash(2n)).toMatch(/^0x[0-9a-f]{64}$/);
      const answer = (await net.backend.call('eth_getBlockByNumber', ['0x2', false], ctx())) as { hash: string };
      expect(answer.hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(answer.hash).not.toBe(net.canonicalHash(2n));
      expect(net.status().map((r) => r.state)).toEqual(['healthy', 'healthy']);
    } finally {
      net.close();
      await a.close();
      await b.close();
    }
  });

  it('error: with no good upstream the request fails clearly (-32005) within its deadline, never hangs', async () => {
    const bad = await startMisbehavingUpstream({ target: anvil.url, mode: 'hang', affects: (m) => m === 'eth_getBalance' });
    const attemptMs = 1_500;
    const net = createNetworkUpstreams({ network: 'ALL_BAD', upstreams: [{ url: bad.url }], logger, headPollMs: 50, attemptTimeoutMs: attemptMs });
    try {
      await net.start();
      const failed = net.backend.call('eth_getBalance', [ADDRESS, 'latest'], ctx());
      const started = performance.now();
      await expect(failed).rejects.toThrow(NoHealthyUpstreamError);
      expect(performance.now() - started).toBeGreaterThan(attemptMs - 100);
      expect(performance.now() - started).toBeLessThan(attemptMs + 1_000);
      const error = await net.backend.call('eth_getBalance', [ADDRESS, 'latest'], ctx()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LimitExceededError);
      expect((error as LimitExceededError).code).toBe(-32005);
      expect((error as Error).message).toMatch(/No healthy upstream on network ALL_BAD for eth_getBalance: Upstream ALL_BAD#0: no answer within 1500 ms/);
      // A batch on it fails as a whole within one deadline, not once more call by call.
      const batch = await timed(() => net.backend.callBatch!([{ method: 'eth_getBalance', params: [ADDRESS, 'latest'] }, { method: 'eth_chainId', params: [] }], ctx()));
      expect(batch.ms).toBeLessThan(attemptMs + 1_000);
      expect(batch.value.map((o) => !o.ok && o.error instanceof NoHealthyUpstreamError)).toEqual([true, true]);
      // The caller's own budget ends an attempt sooner.
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 100);
      const t = await timed(() => net.backend.call('eth_getBalance', [ADDRESS, 'latest'], ctx(abort.signal)).catch((e: unknown) => e));
      expect(t.ms).toBeLessThan(1_000);
      expect(String(t.value)).toMatch(/aborted/);
    } finally {
      net.close();
      await bad.close();
    }
  });

  it('error: every upstream on the wrong chain: -32005 naming the reason', async () => {
    const net = createNetworkUpstreams({ network: 'NOWHERE', chainId: 1n, upstreams: [{ url: anvil.url }], logger, headPollMs: 50, attemptTimeoutMs: ATTEMPT_MS });
    try {
      await net.start();
      expect(net.isReady()).toBe(false);
      await expect(net.backend.call('eth_blockNumber', [], ctx())).rejects.toThrow(/No healthy upstream on network NOWHERE for eth_blockNumber: NOWHERE#0 is on another chain/);
    } finally {
      net.close();
    }
  });
});
