// The fork executor over a real anvil: its bound on executions at once (behind a proxy whose state
// reads hang: one runs, the next waits its turn, the one after is refused with -32005 before any
// work, a waiting caller that leaves is dropped, a turn comes back when a running call ends), and
// a block reorganised away is detected by its hash rather than answered from its kept state.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { createNetworkUpstreams, type NetworkUpstreams } from '../upstream/networkUpstreams.js';
import { startMisbehavingUpstream, type MisbehavingUpstream } from '../upstream/testing/misbehavingUpstream.js';
import { createForkExecutor } from './forkExecutor.js';

let anvil: AnvilProcess;
let proxy: MisbehavingUpstream;
let net: NetworkUpstreams;

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startMisbehavingUpstream({ target: anvil.url, mode: 'proxy' });
  net = createNetworkUpstreams({ network: 'HANG', upstreams: [{ url: proxy.url }], logger: pino({ level: 'silent' }), attemptTimeoutMs: 20_000 });
  await net.start();
}, 30_000);
afterAll(async () => {
  net?.close();
  await proxy?.close();
  await anvil?.stop();
});

describe('forkExecutor', () => {
  it('behavior: one execution at a time, one waiting, the next refused; a waiting caller that leaves is dropped', async () => {
    const executor = createForkExecutor({ chainId: () => 31337n, hardfork: 'prague', maxConcurrent: 1, maxQueued: 1 });
    const call = { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: '0x00000000000000000000000000000000000000aa', value: '0x1' };
    proxy.mode = 'hang';
    proxy.affects = (method) => method === 'eth_getBalance';
    const start = () => {
      const controller = new AbortController();
      const ctx = { requestId: 't', signal: controller.signal };
      const upstream = { call: (m: string, p: unknown[]) => net.backend.call(m, p, ctx), batch: (calls: readonly { method: string; params: unknown }[]) => net.backend.callBatch!(calls, ctx) };
      const running = executor.run('trace_call', [call, ['trace'], 'latest'], upstream, ctx);
      running.catch(() => undefined);
      return { running, abort: () => controller.abort() };
    };
    try {
      const first = start();
      await new Promise((r) => setTimeout(r, 200));
      expect(proxy.seen.get('eth_getBalance')).toBeGreaterThan(0);
      const second = start();
      const third = start();
      await expect(third.running).rejects.toMatchObject({ code: -32005, beforeWork: true });
      second.abort();
      await expect(second.running).rejects.toMatchObject({ name: 'UpstreamAbortedError' });
      // The turn is free again once the first caller leaves: a new call runs (and hangs on its read).
      first.abort();
      await expect(first.running).rejects.toBeDefined();
      const seen = proxy.seen.get('eth_getBalance')!;
      const fourth = start();
      for (let i = 0; i < 50 && proxy.seen.get('eth_getBalance') === seen; i++) await new Promise((r) => setTimeout(r, 20));
      expect(proxy.seen.get('eth_getBalance')).toBeGreaterThan(seen);
      fourth.abort();
      await expect(fourth.running).rejects.toBeDefined();
    } finally {
      proxy.mode = 'proxy';
      proxy.affects = () => true;
    }
    // And with the node answering again, the same executor answers.
    const ctx = { requestId: 't', signal: new AbortController().signal };
    const answer = await executor.run('trace_call', [call, ['trace'], 'latest'], { call: (m, p) => net.backend.call(m, p, ctx) }, ctx);
    expect(JSON.stringify(answer)).toContain('"callType":"call"');
  }, 30_000);

  it('error: a block reorganised away is not found by its hash, though its state reads were kept', async () => {
    const executor = createForkExecutor({ chainId: () => 31337n, hardfork: 'prague' });
    const ctx = { requestId: 't', signal: new AbortController().signal };
    const upstream = { call: (m: string, p: unknown[]) => net.backend.call(m, p, ctx) };
    const call = { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: '0x00000000000000000000000000000000000000bb', value: '0x2' };
    const snapshot = await upstream.call('evm_snapshot', []);
    await upstream.call('evm_mine', []);
    const gone = ((await upstream.call('eth_getBlockByNumber', ['latest', false])) as { hash: string }).hash;
    const at = [call, { blockHash: gone }, { tracer: 'prestateTracer' }];
    expect(await executor.run('debug_traceCall', at, upstream, ctx)).toBeDefined();
    expect(executor.states.stats().reads).toBeGreaterThan(0);
    await upstream.call('evm_revert', [snapshot]);
    await upstream.call('anvil_setNextBlockTimestamp', [Math.floor(Date.now() / 1000) + 100]);
    await upstream.call('evm_mine', []);
    expect(((await upstream.call('eth_getBlockByNumber', ['latest', false])) as { hash: string }).hash).not.toBe(gone);
    await expect(executor.run('debug_traceCall', at, upstream, ctx)).rejects.toMatchObject({ code: -32001 });
    expect(await executor.run('debug_traceCall', [call, 'latest', { tracer: 'prestateTracer' }], upstream, ctx)).toBeDefined();
  }, 30_000);
});
