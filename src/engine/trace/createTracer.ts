// The tracing facade over a ChainView: finds what is to be traced (a mined transaction, a block,
// calls on some block's state), runs it once with the recorder the requested renderers need (or
// takes the record the miner kept when it covers those needs), and keeps rendered results of mined
// transactions in a bounded cache that a reorg empties. Output formats stay with the renderers;
// RPC handlers pick them.
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { equalsBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { InvalidParamsError, ResourceNotFoundError } from '../../rpc/errors.js';
import { bytesToHex, quantityToHex, type Hex } from '../../rpc/hex.js';
import type { BlockId } from '../../rpc/schema/primitives.js';
import { applyStateOverrides, type StateOverrides } from '../chain/stateOverrides.js';
import type { ChainView } from '../chain/types.js';
import { createCallBlockCache, type BlockOverrides } from '../execute/callBlock.js';
import { CachedStorageStateManager } from '../state/stateManagerAt.js';
import type { CallRequest } from '../execute/callTransaction.js';
import type { ExecutionGuardOptions } from '../execute/executionGuard.js';
import { replayBlock } from '../execute/replayBlock.js';
import { runRecordedCall } from '../execute/runCall.js';
import { runRecordedTransaction } from '../execute/runTransaction.js';
import { DEFAULT_STEP_CAPS, type StepCaps } from '../record/stepBudget.js';
import type { ExecutionRecord, RecordNeeds } from '../record/types.js';
import type { RenderContext } from '../render/types.js';
import { RawJson } from '../../rpc/rawJson.js';
import { createRenderedTraceCache, type RenderedTraceCache } from './renderedTraceCache.js';
import { runTraceJob, type JobScope, type TraceJob } from './traceJob.js';
import { ExecutionCancelledError } from '../execute/executionGuard.js';
import { needsOfRender, renderBlockTraces, renderRecord, type TraceRender } from './traceRender.js';

export interface TracerOptions {
  chain: ChainView;
  /** Highest gas a traced call may use, and the gas of a call that names none (default 50,000,000). */
  gasCap?: bigint;
  /** Default per-request execution timeout, ms (default 5000). */
  timeoutMs?: number;
  /** Longest timeout a request may ask for, ms: a longer one gets this (default 30,000). */
  maxTimeoutMs?: number;
  /** Caps on steps and output bytes of struct logs and vmTrace, per trace job (default DEFAULT_STEP_CAPS). */
  stepCaps?: StepCaps;
  /** State root to run calls on at `block` (default `chain.stateRootAt`: the head's working root after dev setters). */
  stateRootAt?: (block: Block) => Promise<Uint8Array>;
  cache?: RenderedTraceCache;
  /** Monotonic clock, ms. */
  now?: () => number;
  /**
   * How often an execution yields to the event loop, ms of busy time (default 20: a worker's loop
   * only waits for cancel messages). A tracer on the HTTP thread (the follower's replays, or no
   * workers) passes less: a request needs a few turns of that loop to be answered.
   */
  yieldEveryMs?: number;
  /**
   * Runs the `trace*` methods' jobs elsewhere (a worker pool, see createTracePool); without it they
   * run on this thread with this tracer's `record*` methods.
   */
  runJob?: (job: TraceJob, scope?: JobScope) => Promise<string[]>;
  /**
   * Use the records the chain kept of mined transactions (`ChainView.minedRecord`) when they cover
   * what a request needs: such traces render on this thread without a replay. Default true; false
   * always replays.
   */
  useMinedRecords?: boolean;
  /**
   * Render `trace_transaction` of every new head block's transactions from the miner's kept records
   * once the block is written, into the cache, off the request path (a few ms of each event-loop
   * turn at most; see PRERENDER_SLICE_MS): anvil answers `trace_transaction` from the call traces it
   * stored while mining, so a first request for a new transaction's trace is a lookup there, and
   * here a cache hit. Default false;
   * the service turns it on.
   */
  prerenderMinedTraces?: boolean;
}

/** A mined transaction with where it sits. */
export interface MinedTransaction {
  tx: TypedTransaction;
  block: Block;
  index: number;
  /** Locators and log offset for renderers. */
  context: RenderContext;
}

/** One traced transaction of a block. */
export interface BlockTrace {
  tx: TypedTransaction;
  record: ExecutionRecord;
  context: RenderContext;
}

/** Where calls run: a block's state (optionally after its first `txIndex` transactions) plus overrides. */
export interface CallTarget {
  block: Block;
  /** State root the calls start from; default `stateRootAt(block)`. */
  stateRoot?: Uint8Array;
  txIndex?: number;
  stateOverrides?: StateOverrides;
  blockOverrides?: BlockOverrides;
}

export interface Tracer {
  readonly chain: ChainView;
  readonly gasCap: bigint;
  /** The caps trace jobs run under (see runTraceJob). */
  readonly stepCaps: StepCaps;
  readonly cache: RenderedTraceCache;
  /** The block `id` names, or an RPC error (-32602 past the head, -32001 unknown hash). */
  requireBlock(id: BlockId | undefined): Promise<Block>;
  /** A mined transaction by hash, or ResourceNotFoundError. */
  requireTransaction(hash: Hex): Promise<MinedTransaction>;
  /** The miner's record of the transaction (when kept and enough for `needs`), else a replay of its block up to it. */
  recordTransaction(mined: MinedTransaction, needs: RecordNeeds, timeoutMs?: number, signal?: AbortSignal): Promise<ExecutionRecord>;
  /** Every transaction's record: the miner's when it kept all of them and they cover `needs`, else a replay. */
  recordBlock(block: Block, needs: RecordNeeds, timeoutMs?: number, signal?: AbortSignal): Promise<BlockTrace[]>;
  /** Runs calls one after another on the same state (trace_callMany chains them). */
  recordCalls(target: CallTarget, calls: { call: CallRequest; needs: RecordNeeds }[], timeoutMs?: number, signal?: AbortSignal): Promise<ExecutionRecord[]>;
  /** Runs a signed transaction on a block's state, as it would run next (trace_rawTransaction). */
  recordRawTransaction(target: Pick<CallTarget, 'block' | 'stateRoot'>, tx: TypedTransaction, needs: RecordNeeds, timeoutMs?: number, signal?: AbortSignal): Promise<ExecutionRecord>;
  /** The execution guard of one job: deadline `timeoutMs` (default the tracer's) from now, yielding every 20 ms. */
  guard(timeoutMs?: number, signal?: AbortSignal): ExecutionGuardOptions & { timeoutMs: number };
  /** Renders a mined transaction from the miner's record, or records and renders it (on a worker when `runJob` is set). */
  traceTransaction(mined: MinedTransaction, render: TraceRender, timeoutMs?: number, scope?: JobScope): Promise<RawJson>;
  /** Renders every transaction of a block from the miner's records, or records and renders them (see renderBlockTraces for the shapes). */
  traceBlock(block: Block, render: TraceRender, timeoutMs?: number, scope?: JobScope): Promise<RawJson>;
  /** Records and renders calls run one after another on the target's state; one result per call. */
  traceCalls(target: CallTarget, calls: { call: CallRequest; render: TraceRender }[], timeoutMs?: number, scope?: JobScope): Promise<RawJson[]>;
  /** Records and renders a signed transaction on a block's state (trace_rawTransaction). */
  traceRawTransaction(block: Block, tx: TypedTransaction, render: TraceRender, timeoutMs?: number, scope?: JobScope): Promise<RawJson>;
  /**
   * Returns the cached value for `key` or computes, caches and returns it. Concurrent requests for
   * the same key share one computation; if it is cancelled (its requester left), a waiting
   * request computes again itself.
   */
  cached<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /**
   * The trace of mined transaction `hash` rendered by `render`, cached under `kind` (the method and
   * its options). The cache is looked up first; then the miner's kept record by the transaction's
   * hash, whose place in its block the record store holds, so neither hit touches the block store.
   * Otherwise the transaction is located (ResourceNotFoundError if unknown) and traced as by
   * {@link traceTransaction}.
   */
  traceMinedTransaction(hash: Hex, kind: string, render: TraceRender, timeoutMs?: number, scope?: JobScope): Promise<RawJson>;
  /** Stops listening to head changes. */
  close(): void;
}

async function logOffsets(chain: ChainView, block: Block): Promise<number[]> {
  const receipts = await chain.getReceipts(block.hash());
  const offsets: number[] = [];
  let sum = 0;
  for (const receipt of receipts) {
    offsets.push(sum);
    sum += receipt.logs.length;
  }
  return offsets;
}

/** A record made without state and steps serves every request that needs neither. */
function coveredByMinedRecord(needs: RecordNeeds): boolean {
  return !needs.state && needs.steps === undefined;
}

function contextFor(block: Block, tx: TypedTransaction, index: number, logIndexOffset: number): RenderContext {
  return {
    logIndexOffset,
    location: {
      blockHash: bytesToHex(block.hash()),
      blockNumber: block.header.number,
      transactionHash: bytesToHex(tx.hash()),
      transactionPosition: index,
    },
  };
}

/** Default of `TracerOptions.maxTimeoutMs` (and of --trace-timeout-max-ms). */
export const DEFAULT_MAX_TIMEOUT_MS = 30_000;
/** Longest a turn of the event loop spends pre-rendering kept traces, ms. */
const PRERENDER_SLICE_MS = 2;
/** Head blocks waiting to be pre-rendered; older ones are dropped (a burst of blocks, e.g. anvil_mine). */
const PRERENDER_MAX_BLOCKS = 64;
const PARITY_TRACE: TraceRender = { format: 'parityTrace' };

/** Creates the tracer over `options.chain`. */
export function createTracer(options: TracerOptions): Tracer {
  const { chain } = options;
  const gasCap = options.gasCap ?? 50_000_000n;
  const maxTimeoutMs = options.maxTimeoutMs ?? DEFAULT_MAX_TIMEOUT_MS;
  const defaultTimeoutMs = Math.min(options.timeoutMs ?? 5000, maxTimeoutMs);
  /** The timeout in force: the request's (or the default), never above the cap. */
  const timeoutFor = (requested: number | undefined): number => Math.min(requested ?? defaultTimeoutMs, maxTimeoutMs);
  const now = options.now ?? (() => performance.now());
  const yieldEveryMs = options.yieldEveryMs ?? 20;
  const cache = options.cache ?? createRenderedTraceCache();
  const stateRootAt = options.stateRootAt ?? (async (block: Block) => chain.stateRootAt(block));
  const inflight = new Map<string, Promise<unknown>>();
  const callBlocks = createCallBlockCache();
  const minedRecord = options.useMinedRecords === false ? undefined : chain.minedRecord?.bind(chain);
  // Bumped when blocks leave the chain: a computation that began before must not fill the cache
  // (it may describe a transaction that is gone, or that lands in another block later).
  let generation = 0;
  const prerender = options.prerenderMinedTraces === true && minedRecord !== undefined ? createPrerenderer() : undefined;
  const unsubscribe = chain.onHead((event) => {
    if (event.removed.length === 0) {
      prerender?.add(event.block);
      return;
    }
    generation++;
    cache.clear();
    inflight.clear();
    prerender?.clear();
  });

  /**
   * New head blocks' `trace_transaction` rendered from their kept records in later turns of the
   * event loop, a slice at a time. Synchronous within a turn, so a reorg (which empties the queue)
   * never meets a render half done; a transaction whose record is gone or whose trace is cached
   * already is skipped.
   */
  function createPrerenderer(): { add(block: Block): void; clear(): void } {
    const blocks: Block[] = [];
    let next = 0;
    let scheduled: NodeJS.Immediate | undefined;
    const run = () => {
      scheduled = undefined;
      const until = now() + PRERENDER_SLICE_MS;
      while (blocks.length > 0) {
        const txs = blocks[0]!.transactions;
        while (next < txs.length) {
          if (now() >= until) {
            scheduled = setImmediate(run);
            return;
          }
          const hash = bytesToHex(txs[next++]!.hash());
          const key = `trace_transaction:${hash}`;
          if (cache.get(key) !== undefined) continue;
          const rendered = keptRender(hash, PARITY_TRACE);
          if (rendered) cache.set(key, rendered);
        }
        blocks.shift();
        next = 0;
      }
    };
    return {
      add(block) {
        if (block.transactions.length === 0) return;
        blocks.push(block);
        if (blocks.length > PRERENDER_MAX_BLOCKS) {
          blocks.shift();
          next = 0;
        }
        scheduled ??= setImmediate(run);
      },
      clear() {
        blocks.length = 0;
        next = 0;
        if (scheduled) clearImmediate(scheduled);
        scheduled = undefined;
      },
    };
  }

  async function cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = cache.get(key);
    if (hit !== undefined) return hit as T;
    // Concurrent identical requests share one execution.
    const running = inflight.get(key);
    if (running) {
      try {
        return (await running) as T;
      } catch (error) {
        if (!(error instanceof ExecutionCancelledError)) throw error;
        // The requester that started it went away; this one still waits for an answer.
        if (inflight.get(key) === running) inflight.delete(key);
        return cached(key, compute);
      }
    }
    const startedIn = generation;
    const promise = compute();
    inflight.set(key, promise);
    try {
      const value = await promise;
      if (startedIn === generation) cache.set(key, value);
      return value;
    } finally {
      if (inflight.get(key) === promise) inflight.delete(key);
    }
  }

  async function requireTransaction(hash: Hex): Promise<MinedTransaction> {
    const found = await chain.getTransaction(Buffer.from(hash.slice(2), 'hex'));
    if (!found) throw new ResourceNotFoundError(`transaction ${hash} not found`);
    // The first transaction's logs start the block (the usual case on an automining chain): no receipts to read.
    const offset = found.index === 0 ? 0 : ((await logOffsets(chain, found.block))[found.index] ?? 0);
    return { ...found, context: contextFor(found.block, found.tx, found.index, offset) };
  }

  function guard(requestedMs?: number, signal?: AbortSignal): ExecutionGuardOptions & { timeoutMs: number } {
    const timeoutMs = timeoutFor(requestedMs);
    return { deadlineMs: now() + timeoutMs, yieldEveryMs, now, timeoutMs, signal };
  }

  async function parentOf(block: Block): Promise<Block> {
    const parent = await (chain.parentForReplay ? chain.parentForReplay(block) : chain.getBlockByHash(block.header.parentHash));
    if (!parent) throw new ResourceNotFoundError(`parent of block ${quantityToHex(block.header.number)} not found`);
    return parent;
  }

  /** Runs `fn` on a pooled VM on `root` inside a checkpoint that is reverted afterwards. */
  function withScratchVm<T>(root: Uint8Array, fn: (vm: VM) => Promise<T>): Promise<T> {
    return withLazyScratchVm(root, async (vm, beforeWrites) => {
      await beforeWrites();
      return fn(vm);
    });
  }

  /**
   * `withScratchVm` for runs that say when they are about to write (runRecordedCall's
   * `beforeWrites`): on an overlay with pure reads the checkpoint is taken only then, so a call the
   * interpreter answers (reads only) skips ethereumjs's checkpoint and revert.
   */
  function withLazyScratchVm<T>(root: Uint8Array, fn: (vm: VM, beforeWrites: () => Promise<void>) => Promise<T>): Promise<T> {
    return chain.withVm(root, async (vm) => {
      const sm = vm.stateManager;
      let open = false;
      const beforeWrites = async () => {
        if (open) return;
        await sm.checkpoint();
        open = true;
      };
      if (!(sm instanceof CachedStorageStateManager && sm.pureReads)) await beforeWrites();
      try {
        return await fn(vm, beforeWrites);
      } finally {
        if (open) await sm.revert();
      }
    });
  }

  /** A fresh VM on the state after the first `txIndex` transactions of `block`. */
  async function vmAfter(block: Block, txIndex: number, timeoutMs?: number, signal?: AbortSignal): Promise<VM> {
    if (txIndex < 0 || txIndex > block.transactions.length) {
      throw new InvalidParamsError(`txIndex ${txIndex} is out of range: block has ${block.transactions.length} transactions`);
    }
    const parent = await parentOf(block);
    const vm = await chain.createVm({ stateRoot: await chain.preStateRoot(block) });
    if (txIndex > 0) {
      const none: RecordNeeds = { state: false, steps: undefined };
      // Record the last of the first txIndex transactions only to make the replay run that far.
      await replayBlock({ vm, block, parent, needsAt: (i) => (i === txIndex - 1 ? none : undefined), guard: guard(timeoutMs, signal), keepState: true });
    }
    return vm;
  }

  /** The miner's record of `tx` in `block`, if kept, recorded in this very block and enough for `needs`. */
  function minedRecordOf(block: Block, tx: TypedTransaction, needs: RecordNeeds): ExecutionRecord | undefined {
    if (!minedRecord || !coveredByMinedRecord(needs)) return undefined;
    const found = minedRecord(tx.hash());
    return found && equalsBytes(found.blockHash, block.hash()) ? found.record : undefined;
  }

  /** Mined transaction `hash` rendered from the miner's record when one is kept and covers `render`. */
  function keptRender(hash: Hex, render: TraceRender): RawJson | undefined {
    if (!minedRecord || !coveredByMinedRecord(needsOfRender(render))) return undefined;
    const found = minedRecord(Buffer.from(hash.slice(2), 'hex'));
    if (!found) return undefined;
    const location = { blockHash: bytesToHex(found.blockHash), blockNumber: found.blockNumber, transactionHash: hash.toLowerCase() as Hex, transactionPosition: found.index };
    return new RawJson(JSON.stringify(renderRecord(found.record, render, { logIndexOffset: found.logIndexOffset, location })));
  }

  /** Every transaction's kept record with its render context, or undefined unless all are kept. */
  async function minedBlockTraces(block: Block, needs: RecordNeeds): Promise<BlockTrace[] | undefined> {
    const records: ExecutionRecord[] = [];
    for (const tx of block.transactions) {
      const record = minedRecordOf(block, tx, needs);
      if (!record) return undefined;
      records.push(record);
    }
    const offsets = await logOffsets(chain, block);
    return block.transactions.map((tx, i) => ({ tx, record: records[i]!, context: contextFor(block, tx, i, offsets[i] ?? 0) }));
  }

  const runJob = (job: TraceJob, scope?: JobScope): Promise<string[]> =>
    options.runJob ? options.runJob(job, scope) : runTraceJob(tracer, job, { signal: scope?.signal });

  const tracer: Tracer = {
    chain,
    gasCap,
    stepCaps: options.stepCaps ?? DEFAULT_STEP_CAPS,
    cache,

    async requireBlock(id) {
      const block = await chain.resolveBlock(id ?? { kind: 'tag', tag: 'latest' });
      if (block) return block;
      if (id?.kind === 'number') {
        throw new InvalidParamsError(`block ${quantityToHex(id.number)} not found: the chain head is ${quantityToHex(chain.headNumber())}`);
      }
      throw new ResourceNotFoundError(`block ${id?.kind === 'hash' ? id.hash : 'unknown'} not found`);
    },

    requireTransaction,

    guard,

    async recordTransaction(mined, needs, timeoutMs, signal) {
      const kept = minedRecordOf(mined.block, mined.tx, needs);
      if (kept) return kept;
      const parent = await parentOf(mined.block);
      const records = await withScratchVm(await chain.preStateRoot(mined.block), (vm) =>
        replayBlock({ vm, block: mined.block, parent, needsAt: (i) => (i === mined.index ? needs : undefined), guard: guard(timeoutMs, signal) }),
      );
      return records.get(mined.index)!;
    },

    async recordBlock(block, needs, timeoutMs, signal) {
      if (block.transactions.length === 0) return [];
      const kept = await minedBlockTraces(block, needs);
      if (kept) return kept;
      const parent = await parentOf(block);
      const records = await withScratchVm(await chain.preStateRoot(block), (vm) => replayBlock({ vm, block, parent, needsAt: () => needs, guard: guard(timeoutMs, signal) }));
      const offsets = await logOffsets(chain, block);
      return block.transactions.map((tx, i) => ({ tx, record: records.get(i)!, context: contextFor(block, tx, i, offsets[i] ?? 0) }));
    },

    async recordCalls(target, calls, timeoutMs, signal) {
      const g = guard(timeoutMs, signal);
      const runAll = async (vm: VM, beforeWrites?: () => Promise<void>) => {
        const out: ExecutionRecord[] = [];
        for (const { call, needs } of calls) {
          out.push(await runRecordedCall({ vm, block: target.block, call, needs, gasCap, blockOverrides: target.blockOverrides, guard: g, callBlocks, stateless: calls.length === 1, beforeWrites }));
        }
        return out;
      };
      // The common case (no txIndex, no state overrides) borrows a pooled VM; the others build one.
      const root = async () => target.stateRoot ?? (await stateRootAt(target.block));
      if (target.txIndex === undefined && !target.stateOverrides) return withLazyScratchVm(await root(), runAll);
      const vm = target.txIndex === undefined ? await chain.createVm({ stateRoot: await root() }) : await vmAfter(target.block, target.txIndex, timeoutMs, signal);
      if (target.stateOverrides) await applyStateOverrides(vm.stateManager as Parameters<typeof applyStateOverrides>[0], target.stateOverrides);
      return runAll(vm);
    },

    async recordRawTransaction({ block, stateRoot }, tx, needs, timeoutMs, signal) {
      return withScratchVm(stateRoot ?? (await stateRootAt(block)), (vm) => runRecordedTransaction({ vm, tx, block, guard: guard(timeoutMs, signal) }, needs));
    },

    async traceTransaction(mined, render, requestedMs, scope) {
      const kept = minedRecordOf(mined.block, mined.tx, needsOfRender(render));
      if (kept) return new RawJson(JSON.stringify(renderRecord(kept, render, mined.context)));
      const job: TraceJob = { kind: 'transaction', blockHash: mined.block.hash(), index: mined.index, context: mined.context, render, timeoutMs: timeoutFor(requestedMs) };
      return new RawJson((await runJob(job, scope))[0]!);
    },

    async traceBlock(block, render, requestedMs, scope) {
      const kept = block.transactions.length > 0 ? await minedBlockTraces(block, needsOfRender(render)) : undefined;
      if (kept) return new RawJson(JSON.stringify(renderBlockTraces(kept, render)));
      return new RawJson((await runJob({ kind: 'block', blockHash: block.hash(), render, timeoutMs: timeoutFor(requestedMs) }, scope))[0]!);
    },

    async traceCalls(target, calls, requestedMs, scope) {
      const timeoutMs = timeoutFor(requestedMs);
      const { block, txIndex, stateOverrides, blockOverrides } = target;
      const stateRoot = target.stateRoot ?? (await stateRootAt(block));
      const texts = await runJob({ kind: 'calls', blockHash: block.hash(), stateRoot, txIndex, stateOverrides, blockOverrides, calls, timeoutMs }, scope);
      return texts.map((text) => new RawJson(text));
    },

    async traceRawTransaction(block, tx, render, requestedMs, scope) {
      const job: TraceJob = { kind: 'rawTransaction', blockHash: block.hash(), stateRoot: await stateRootAt(block), tx: tx.serialize(), render, timeoutMs: timeoutFor(requestedMs) };
      return new RawJson((await runJob(job, scope))[0]!);
    },

    cached,

    traceMinedTransaction(hash, kind, render, requestedMs, scope) {
      const key = `${kind}:${hash.toLowerCase()}`;
      const hit = cache.get(key);
      if (hit !== undefined) return Promise.resolve(hit as RawJson);
      return cached(key, async () => keptRender(hash, render) ?? tracer.traceTransaction(await requireTransaction(hash), render, requestedMs, scope));
    },

    close() {
      unsubscribe();
      prerender?.clear();
    },
  };
  return tracer;
}
