// The cheapest correct path for a trace call on an upstream network (issue 13 item 4): the native
// method of an upstream that has it, else a translation from the other trace family whose needs
// the network's probed capabilities meet (translate/), else execution by the embedded engine on
// an upstream's state (an optional TraceExecutor). A Backend wrapping the routed one, so every
// call a translation or an execution makes is routed and fails over like any other; the cache
// wraps this one, so translated and executed answers are cached under the same keys. Which node
// answers a call is routedBackend.ts's; how a translation reads its node is translate/'s.
import type { Backend, BackendCall, CallOutcome } from '../backend.js';
import type { RpcContext } from '../embedded/methodTable.js';
import { MethodNotFoundError, TranslationGapError } from '../../rpc/errors.js';
import { pickTranslation, type Translation, type Upstream, type UpstreamNeed } from '../translate/index.js';
import { canAnswer, tracingNeeds, type CallNeeds, type UpstreamMember } from './upstreamMember.js';
import type { TracePathMetrics, TraceSource } from './tracePathMetrics.js';

export type { TraceSource } from './tracePathMetrics.js';
/** A path as the capability table shows it; `unsupported` when no path can answer. */
export type TracePath = TraceSource | 'unsupported';

/** Runs trace calls with the embedded engine on an upstream's state (fork execution). */
export interface TraceExecutor {
  /** Whether it can answer these parameters at all (method, tracer, trace types). */
  accepts(method: string, params: readonly unknown[]): boolean;
  /**
   * The answer; every read goes through `upstream` (the routed backend with the caller's context:
   * single calls, and batches when the routed backend takes them).
   */
  run(method: string, params: readonly unknown[], upstream: { call: Upstream; batch?: (calls: readonly BackendCall[]) => Promise<CallOutcome[]> }, ctx: RpcContext): Promise<unknown>;
}

export interface TracePathOptions {
  network: string;
  /** The network's routed backend. */
  inner: Backend;
  /** The pool's members, with their probed capabilities. */
  members(): readonly UpstreamMember[];
  executor?: TraceExecutor;
  metrics?: TracePathMetrics;
}

export interface TracePathBackend extends Backend {
  /** Which path each trace method (and tracer or trace type) takes now: GET /api/upstreams' `trace_paths`. */
  paths(): Record<string, TracePath>;
}

/** A trace method: its answer may come from another path than the node's own method. */
export const isTraceMethod = (method: string): boolean => method.startsWith('trace_') || method.startsWith('debug_trace');

const ZERO_HASH = `0x${'0'.repeat(64)}`;
const CALL = { from: '0x0000000000000000000000000000000000000000', to: '0x0000000000000000000000000000000000000000' };
const TRACE_TYPES = ['trace', 'stateDiff', 'vmTrace'] as const;
const TRACERS = ['callTracer', 'flatCallTracer', 'prestateTracer', 'structLogger'] as const;
const tracerParam = (tracer: (typeof TRACERS)[number]): object => (tracer === 'structLogger' ? {} : { tracer });

/** The table's rows: a key and the representative call whose path it shows. */
const PATH_ROWS: ReadonlyArray<[key: string, method: string, params: unknown[]]> = [
  ['trace_transaction', 'trace_transaction', [ZERO_HASH]],
  ['trace_get', 'trace_get', [ZERO_HASH, ['0x0']]],
  ['trace_block', 'trace_block', ['latest']],
  ['trace_filter', 'trace_filter', [{ fromBlock: 'latest', toBlock: 'latest' }]],
  ...TRACE_TYPES.flatMap((t): Array<[string, string, unknown[]]> => [
    [`trace_call/${t}`, 'trace_call', [CALL, [t], 'latest']],
    [`trace_callMany/${t}`, 'trace_callMany', [[[CALL, [t]]], 'latest']],
    [`trace_replayTransaction/${t}`, 'trace_replayTransaction', [ZERO_HASH, [t]]],
    [`trace_replayBlockTransactions/${t}`, 'trace_replayBlockTransactions', ['latest', [t]]],
  ]),
  ...TRACERS.flatMap((tracer): Array<[string, string, unknown[]]> => [
    [`debug_traceTransaction/${tracer}`, 'debug_traceTransaction', [ZERO_HASH, tracerParam(tracer)]],
    [`debug_traceCall/${tracer}`, 'debug_traceCall', [CALL, 'latest', tracerParam(tracer)]],
    [`debug_traceBlockByNumber/${tracer}`, 'debug_traceBlockByNumber', ['latest', tracerParam(tracer)]],
    [`debug_traceBlockByHash/${tracer}`, 'debug_traceBlockByHash', [ZERO_HASH, tracerParam(tracer)]],
  ]),
];

/** Method names counted under their own label in /metrics (anything else is `other`). */
const KNOWN_METHODS = new Set(PATH_ROWS.map(([, method]) => method));

type Path = { source: 'native' } | { source: 'translated'; translation: Translation } | { source: 'executed' };
type Choice = Path | undefined;

export function createTracePathBackend(options: TracePathOptions): TracePathBackend {
  const { network, inner, executor, metrics } = options;

  /**
   * The members whose capabilities count: the probed ones on the network's chain, or every member
   * on it while none is probed yet (the router then finds out). An unreachable, never-probed node
   * must not make a method look native.
   */
  const judged = (): UpstreamMember[] => {
    const onChain = options.members().filter((m) => !m.wrongChain);
    const probed = onChain.filter((m) => m.caps !== undefined);
    return probed.length > 0 ? probed : onChain;
  };
  /** Some upstream of the network may answer `needs` (what a probe did not find out counts as yes, as for the router). */
  const networkCan = (needs: CallNeeds): boolean => judged().some((m) => canAnswer(m, needs));
  const has = (need: UpstreamNeed): boolean => {
    if (need.method.startsWith('eth_') && need.tracer === undefined) return true;
    return networkCan({ method: need.method, tracer: need.tracer, traceTypes: need.traceTypes ? [...need.traceTypes] : undefined, blocks: [] });
  };

  /** The path for a call: native first, then a translation, then execution; `after` skips the paths up to it. */
  const choose = (method: string, params: readonly unknown[], after?: TraceSource): Choice => {
    if (after === undefined && networkCan({ method, ...tracingNeeds(method, params), blocks: [] })) return { source: 'native' };
    if (after === undefined || after === 'native') {
      const translation = pickTranslation(method, params, has);
      if (translation) return { source: 'translated', translation };
    }
    if (after !== 'executed' && executor?.accepts(method, params)) return { source: 'executed' };
    return undefined;
  };

  const note = (method: string, source: TraceSource, ctx: RpcContext) => {
    ctx.noteTraceSource?.(source);
    metrics?.answered(network, KNOWN_METHODS.has(method) ? method : 'other', source);
  };

  /** Runs one trace call along its path, taking the next path when one finds it cannot answer. */
  const traceCall = async (method: string, rawParams: unknown, ctx: RpcContext): Promise<unknown> => {
    const params = Array.isArray(rawParams) ? (rawParams as unknown[]) : [];
    const upstream: Upstream = (m, p) => inner.call(m, p, ctx);
    const first = choose(method, params);
    // No path at all: the routed backend's own answer (-32601 naming method and network).
    if (!first) return inner.call(method, rawParams, ctx);
    let choice: Path = first;
    for (;;) {
      try {
        let result: unknown;
        if (choice.source === 'native') result = await inner.call(method, rawParams, ctx);
        else if (choice.source === 'translated') result = await choice.translation.run(params, upstream);
        else result = await executor!.run(method, params, { call: upstream, batch: inner.callBatch && ((calls) => inner.callBatch!(calls, ctx)) }, ctx);
        note(method, choice.source, ctx);
        return result;
      } catch (error) {
        // A node that turned out not to have the method (the router now knows, even when another,
        // unreachable node made the router's error a -32005), or a translation whose source lacks
        // what the answer needs: the next path may still answer.
        const learned = choice.source === 'native' && !networkCan({ method, ...tracingNeeds(method, params), blocks: [] });
        const next: Choice = learned || error instanceof MethodNotFoundError || error instanceof TranslationGapError ? choose(method, params, choice.source) : undefined;
        if (error instanceof TranslationGapError) metrics?.gap(network, KNOWN_METHODS.has(method) ? method : 'other', error.missing);
        if (!next) throw error;
        choice = next;
      }
    }
  };

  const call = (method: string, params: unknown, ctx: RpcContext): Promise<unknown> => (isTraceMethod(method) ? traceCall(method, params, ctx) : inner.call(method, params, ctx));

  /** A batch: calls the network answers natively go on together; the others take their own path. */
  const callBatch = async (calls: readonly BackendCall[], ctx: RpcContext): Promise<CallOutcome[]> => {
    const outcomes: CallOutcome[] = new Array(calls.length);
    const together: number[] = [];
    const alone: number[] = [];
    calls.forEach((c, i) => {
      const params = Array.isArray(c.params) ? (c.params as unknown[]) : [];
      (isTraceMethod(c.method) && choose(c.method, params)?.source !== 'native' ? alone : together).push(i);
    });
    const single = async (i: number) => {
      try {
        outcomes[i] = { ok: true, result: await call(calls[i]!.method, calls[i]!.params, ctx) };
      } catch (error) {
        outcomes[i] = { ok: false, error };
      }
    };
    const group = async () => {
      if (together.length === 1 || !inner.callBatch) return Promise.all(together.map(single));
      let answers: CallOutcome[];
      try {
        answers = await inner.callBatch(
          together.map((i) => calls[i]!),
          ctx,
        );
      } catch (error) {
        answers = together.map(() => ({ ok: false, error }));
      }
      together.forEach((i, k) => {
        const answer = answers[k]!;
        const call = calls[i]!;
        if (!answer.ok || !isTraceMethod(call.method)) outcomes[i] = answer;
        else {
          note(call.method, 'native', ctx);
          outcomes[i] = answer;
        }
      });
      // A trace call a node refused as unsupported (the router knows it now) takes the next path on its own.
      const refused = (i: number) => {
        const { method, params } = calls[i]!;
        if (outcomes[i]!.ok || !isTraceMethod(method)) return false;
        const next = choose(method, Array.isArray(params) ? (params as unknown[]) : []);
        return next !== undefined && next.source !== 'native';
      };
      await Promise.all(together.filter(refused).map(single));
    };
    await Promise.all([group(), ...alone.map(single)]);
    return outcomes;
  };

  return {
    name: inner.name,
    handles: inner.handles,
    call,
    callBatch: inner.callBatch ? callBatch : undefined,
    isReady: inner.isReady,
    paths() {
      const table: Record<string, TracePath> = {};
      for (const [key, method, params] of PATH_ROWS) table[key] = choose(method, params)?.source ?? 'unsupported';
      return table;
    },
  };
}
