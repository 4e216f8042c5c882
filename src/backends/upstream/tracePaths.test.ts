// The path choice over a real anvil network (through a small misbehaving proxy) beside an
// unreachable upstream: the never-probed node does not make a method look native; a batch sends
// native calls on together and runs the others on their own path, each noted with its source; a
// node that answers -32601 to a method its probe found moves the call to a translation, although
// the router's own error names the unreachable node too.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import type { RpcContext } from '../embedded/methodTable.js';
import { createNetworkUpstreams, type NetworkUpstreams } from './networkUpstreams.js';
import { startMisbehavingUpstream, type MisbehavingUpstream } from './testing/misbehavingUpstream.js';
import { createTracePathBackend, type TraceSource } from './tracePaths.js';
import { createTracePathMetrics } from './tracePathMetrics.js';
import { createMetricsRegistry } from '../../gateway/ops/metricsRegistry.js';

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
let anvil: AnvilProcess;
let proxy: MisbehavingUpstream;
let net: NetworkUpstreams;
let tx: string;

function context(): RpcContext & { sources: TraceSource[] } {
  const sources: TraceSource[] = [];
  return { requestId: 'test', signal: new AbortController().signal, sources, noteTraceSource: (s) => void sources.push(s) };
}

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startMisbehavingUpstream({ target: anvil.url, mode: 'proxy' });
  const dead = `http://127.0.0.1:${await freePort()}`;
  net = createNetworkUpstreams({ network: 'MIXED', upstreams: [{ url: proxy.url }, { url: dead }], logger: pino({ level: 'silent' }), headPollMs: 100, attemptTimeoutMs: 2_000, minReprobeMs: 60_000 });
  await net.start();
  tx = (await net.backend.call('eth_sendTransaction', [{ from: FROM, to: FROM, value: '0x1' }], context())) as string;
  for (let i = 0; i < 200 && (await net.backend.call('eth_getTransactionReceipt', [tx], context())) === null; i++) await new Promise((r) => setTimeout(r, 10));
}, 30_000);
afterAll(async () => {
  net?.close();
  await proxy?.close();
  await anvil?.stop();
});

describe('tracePaths', () => {
  it('default: an unreachable, never-probed upstream does not make anvil\'s missing methods look native', () => {
    const paths = createTracePathBackend({ network: 'MIXED', inner: net.backend, members: () => net.members() }).paths();
    expect(net.status()[1]!.state).toBe('unreachable');
    expect(paths).toMatchObject({ trace_transaction: 'native', 'trace_call/trace': 'translated', trace_get: 'translated', 'debug_traceTransaction/flatCallTracer': 'translated', 'trace_call/vmTrace': 'unsupported' });
  });

  it('behavior: a batch sends native calls on together and runs the others on their own path', async () => {
    const paths = createTracePathBackend({ network: 'MIXED', inner: net.backend, members: () => net.members() });
    const ctx = context();
    const outcomes = await paths.callBatch!(
      [
        { method: 'debug_traceTransaction', params: [tx, { tracer: 'callTracer' }] },
        { method: 'debug_traceTransaction', params: [tx, { tracer: 'flatCallTracer' }] },
        { method: 'eth_blockNumber', params: [] },
      ],
      ctx,
    );
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true]);
    expect(outcomes[0]).toEqual({ ok: true, result: await anvilCall('debug_traceTransaction', [tx, { tracer: 'callTracer' }]) });
    expect((outcomes[1] as { result: { action: { from: string } }[] }).result[0]!.action.from).toBe(FROM);
    expect(ctx.sources.sort()).toEqual(['native', 'translated']);
  });
  it('behavior: a node answering -32601 to a method its probe found moves the call to a translation, counted as such', async () => {
    const registry = createMetricsRegistry();
    const paths = createTracePathBackend({ network: 'MIXED', inner: net.backend, members: () => net.members(), metrics: createTracePathMetrics(registry) });
    const native = await anvilCall('trace_transaction', [tx]);
    proxy.mode = 'methodNotFound';
    proxy.affects = (method) => method === 'trace_transaction';
    try {
      const ctx = context();
      expect(await paths.call('trace_transaction', [tx], ctx)).toEqual(native);
      expect(ctx.sources).toEqual(['translated']);
      // The router now knows: the table says translated.
      expect(paths.paths().trace_transaction).toBe('translated');
    } finally {
      proxy.mode = 'proxy';
      proxy.affects = () => true;
    }
    expect(registry.render()).toContain('tracehook_trace_answers_total{network="MIXED",method="trace_transaction",source="translated"} 1\n');
  });

});

async function anvilCall(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}
