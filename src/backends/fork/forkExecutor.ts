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
import { LimitExceededError, NoHealthyUpstreamError, UpstreamAbortedError } from '../../rpc/errors.js';
import { createDebugNamespace } from '../embedded/debugNamespace.js';
import { callMethod, createMethodTable, type RpcContext } from '../embedded/methodTable.js';
import { createTraceNamespace } from '../embedded/traceNamespace.js';
import type { TraceExecutor } from '../upstream/tracePaths.js';
import { createForkChainView } from './forkChainView.js';
import { remoteHardfork } from './remoteHardfork.js';
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
  /**
   * The network's configured hardfork, e.g. `prague`: the rules of raw transactions, and of a
   * block when its header fields allow it (remoteHardfork.ts; known chain ids follow their
   * published schedule instead).
   */
  hardfork: string;
  kzg?: KZG;
  /** Shared per-block state reads; default a new cache with its default bounds. */
  states?: ForkStateCache;
  /** Highest gas of a traced call (default 50,000,000, as the embedded engine). */
  gasCap?: bigint;
  /** Default execution timeout, ms (reads over the network count): default 30,000. */
  timeoutMs?: number;
  maxTimeoutMs?: number;
  /**
   * Executions at once (they run on the gateway's thread, between its requests). Default 2; the
   * next `maxQueued` wait their turn, and past them a call is refused (-32005) before any work.
   */
  maxConcurrent?: number;
  /** Default 64. */
  maxQueued?: number;
}

export interface ForkExecutor extends TraceExecutor {
  readonly states: ForkStateCache;
}

/** A turn to execute: waits while `max` run, refuses past `maxQueued` waiting, gives up with the caller. */
function createTurns(max: number, maxQueued: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) next();
  };
  return async function turn(method: string, signal: AbortSignal): Promise<() => void> {
    if (running < max) {
      running++;
      return release;
    }
    if (waiting.length >= maxQueued) throw new LimitExceededError(`${method}: too many fork executions waiting (${maxQueued}); try again later`, { retryable: true, beforeWork: true });
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', leave);
        running++;
        resolve();
      };
      const leave = () => {
        const at = waiting.indexOf(go);
        if (at >= 0) waiting.splice(at, 1);
        reject(new UpstreamAbortedError('fork'));
      };
      if (signal.aborted) return leave();
      signal.addEventListener('abort', leave, { once: true });
      waiting.push(go);
    });
    return release;
  };
}

export function createForkExecutor(options: ForkExecutorOptions): ForkExecutor {
  const states = options.states ?? createForkStateCache();
  const turn = createTurns(options.maxConcurrent ?? 2, options.maxQueued ?? 64);
  const commons = new Map<string, Common>();
  const commonFor = (chainId: bigint, hardfork: string): Common => {
    const key = `${chainId}/${hardfork}`;
    let common = commons.get(key);
    if (!common) {
      common = createPinnedCommon({ chainId, hardfork: hardfork as Hardfork, kzg: options.kzg });
      commons.set(key, common);
    }
    return common;
  };

  return {
    states,
    accepts: (method) => EXECUTED_METHODS.has(method),
    async run(method, params, upstream: ForkUpstream, ctx: RpcContext) {
      const chainId = options.chainId();
      if (chainId === undefined) throw new NoHealthyUpstreamError('fork', method, ['the network\'s chain id is not known yet']);
      const release = await turn(method, ctx.signal);
      try {
        const chain = createForkChainView({
          upstream,
          states,
          common: commonFor(chainId, options.hardfork),
          commonFor: (header) => commonFor(chainId, remoteHardfork(chainId, header, options.hardfork)),
          fullBlocks: !headerOnly(method, params),
        });
        // On this thread, yielding often: the reads wait on the network anyway.
        const tracer = createTracer({ chain, gasCap: options.gasCap, timeoutMs: options.timeoutMs ?? 30_000, maxTimeoutMs: options.maxTimeoutMs ?? Math.max(30_000, options.timeoutMs ?? 0), yieldEveryMs: 5, useMinedRecords: false });
        try {
          const table = createMethodTable(createTraceNamespace({ tracer }), createDebugNamespace({ tracer }));
          return await callMethod(table, method, params, ctx);
        } finally {
          tracer.close();
        }
      } finally {
        release();
      }
    },
  };
}
