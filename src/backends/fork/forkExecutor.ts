// Fork execution (issue 13 item 2): the embedded engine answers a trace call on an upstream
// network's state when no upstream and no translation can. Each call gets a ChainView over the
// upstream (forkChainView.ts) and the engine's own tracer and trace/debug handlers over it, so the
// answer is rendered exactly as the embedded chain renders it; state is read lazily per block
// hash and shared across requests (forkState.ts). The choice to execute is tracePaths.ts's.
import type { Common } from '@ethereumjs/common';
import type { Hardfork } from '@ethereumjs/common';
import type { KZG } from '@ethereumjs/util';
import { createPinnedCommon } from '../../engine/execute/gethConfig.js';
import { createTracer } from '../../engine/trace/createTracer.js';
import { NoHealthyUpstreamError } from '../../rpc/errors.js';
import { createDebugNamespace } from '../embedded/debugNamespace.js';
import { callMethod, createMethodTable, type RpcContext } from '../embedded/methodTable.js';
import { createTraceNamespace } from '../embedded/traceNamespace.js';
import type { TraceExecutor } from '../upstream/tracePaths.js';
import { createForkChainView } from './forkChainView.js';
import { createForkStateCache, type ForkStateCache, type ForkUpstream } from './forkState.js';

/**
 * Methods fork execution answers: calls at a block and mined transactions and blocks, every
 * tracer and trace type the engine renders. trace_filter is left out (a range of blocks replayed
 * over the network is not a fallback to take silently).
 */
export const EXECUTED_METHODS: ReadonlySet<string> = new Set([
  'trace_call',
  'trace_callMany',
  'trace_rawTransaction',
  'trace_replayTransaction',
  'trace_replayBlockTransactions',
  'trace_transaction',
  'trace_block',
  'trace_get',
  'debug_traceCall',
  'debug_traceTransaction',
  'debug_traceBlockByNumber',
  'debug_traceBlockByHash',
]);

/** Calls on a block's post-state: they need the block's header only (unless a call runs after some of its transactions). */
function headerOnly(method: string, params: readonly unknown[]): boolean {
  if (method === 'trace_call' || method === 'trace_callMany' || method === 'trace_rawTransaction') return true;
  if (method !== 'debug_traceCall') return false;
  const options = params[2];
  return typeof options !== 'object' || options === null || (options as { txIndex?: unknown }).txIndex === undefined;
}

export interface ForkExecutorOptions {
  /** The network's chain id (known once its upstreams are probed). */
  chainId(): bigint | undefined;
  /** Rules the upstream chain runs at, e.g. `prague` (the configured hardfork). */
  hardfork: string;
  kzg?: KZG;
  /** Shared per-block state reads; default a new cache with its default bounds. */
  states?: ForkStateCache;
  /** Highest gas of a traced call (default 50,000,000, as the embedded engine). */
  gasCap?: bigint;
  /** Default execution timeout, ms (reads over the network count): default 30,000. */
  timeoutMs?: number;
  maxTimeoutMs?: number;
}

export interface ForkExecutor extends TraceExecutor {
  readonly states: ForkStateCache;
}

export function createForkExecutor(options: ForkExecutorOptions): ForkExecutor {
  const states = options.states ?? createForkStateCache();
  const commons = new Map<bigint, Common>();
  const commonFor = (chainId: bigint): Common => {
    let common = commons.get(chainId);
    if (!common) {
      common = createPinnedCommon({ chainId, hardfork: options.hardfork as Hardfork, kzg: options.kzg });
      commons.set(chainId, common);
    }
    return common;
  };

  return {
    states,
    accepts: (method) => EXECUTED_METHODS.has(method),
    async run(method, params, upstream: ForkUpstream, ctx: RpcContext) {
      const chainId = options.chainId();
      if (chainId === undefined) throw new NoHealthyUpstreamError('fork', method, ['the network\'s chain id is not known yet']);
      const chain = createForkChainView({ upstream, states, common: commonFor(chainId), fullBlocks: !headerOnly(method, params) });
      // On this thread, yielding often: the reads wait on the network anyway.
      const tracer = createTracer({ chain, gasCap: options.gasCap, timeoutMs: options.timeoutMs ?? 30_000, maxTimeoutMs: options.maxTimeoutMs ?? Math.max(30_000, options.timeoutMs ?? 0), yieldEveryMs: 5, useMinedRecords: false });
      try {
        const table = createMethodTable(createTraceNamespace({ tracer }), createDebugNamespace({ tracer }));
        return await callMethod(table, method, params, ctx);
      } finally {
        tracer.close();
      }
    },
  };
}
