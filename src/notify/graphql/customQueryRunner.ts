// Runs Custom webhook queries off the main thread, one at a time, in one worker (queryWorker.ts),
// each within a budget: a time limit enforced by terminating the worker, a cap on the serialized
// result enforced in the worker, and a heap limit on the worker. Going over any of them is an
// outcome for that one query, never an error of the caller; the next run gets a fresh worker.
import type { Worker } from 'node:worker_threads';
import { siblingWorkerUrl, startWorker } from '../../threads/startWorker.js';
import type { BlockData } from '../extract/blockData.js';
import type { QueryWorkerReply, QueryWorkerRequest } from './queryWorkerProtocol.js';

export interface QueryBudget {
  /** Longest one query may run on one block. */
  timeMs: number;
  /** Largest serialized `data` of one notification, in bytes (UTF-8). */
  maxResultBytes: number;
  /** Old-generation heap of the worker, in MiB (a last line behind the result cap). */
  maxHeapMb: number;
}

export const DEFAULT_QUERY_BUDGET: Readonly<QueryBudget> = { timeMs: 2_000, maxResultBytes: 1024 * 1024, maxHeapMb: 256 };

export type QueryRunOutcome =
  | { ok: true; data: Record<string, unknown> | null; errors: string[]; empty: boolean; elapsedMs: number }
  /** Over budget (or the worker died running it): `reason` says which, for the pause record. */
  | { ok: false; reason: string; elapsedMs: number };

export interface CustomQueryRunner {
  /** Runs `query` over `block`; `ancestors` (parent first) serve `parent`. Throws only when no worker can start. */
  run(block: BlockData, ancestors: readonly BlockData[], query: string, variables?: Record<string, unknown>): Promise<QueryRunOutcome>;
  /** Ends the worker once the runs in progress are done; a later run starts a new one. */
  close(): Promise<void>;
}

export interface CustomQueryRunnerOptions {
  budget?: Partial<QueryBudget>;
  /** The worker script; default queryWorker.js (or .ts from source) beside this module. */
  workerUrl?: URL;
  /** Longest a new worker may take to load. Default 30 s. */
  startTimeoutMs?: number;
}

interface Slot {
  worker: Worker;
  /** Hash of the block this worker holds, and how many of its ancestors (parent first). */
  blockHash: string | null;
  ancestorCount: number;
  /** Settles the run in progress when the worker exits or fails. */
  onExit?: (reason: string) => void;
  onReply?: (reply: QueryWorkerReply) => void;
}

export function createCustomQueryRunner(options: CustomQueryRunnerOptions = {}): CustomQueryRunner {
  const budget: QueryBudget = { ...DEFAULT_QUERY_BUDGET, ...options.budget };
  const workerUrl = options.workerUrl ?? siblingWorkerUrl(import.meta.url, 'queryWorker');
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  let slot: Slot | null = null;
  let nextId = 1;
  // Runs go one at a time: each waits for the one before it.
  let queue: Promise<unknown> = Promise.resolve();

  function spawn(): Promise<Slot> {
    const worker = startWorker(workerUrl, { resourceLimits: { maxOldGenerationSizeMb: budget.maxHeapMb } });
    // An idle worker never keeps the process alive.
    worker.unref();
    const started: Slot = { worker, blockHash: null, ancestorCount: 0 };
    let lastError = '';
    return new Promise<Slot>((resolve, reject) => {
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new Error(`the Custom query worker did not start within ${startTimeoutMs} ms`));
      }, startTimeoutMs);
      worker.on('message', (reply: QueryWorkerReply) => {
        if (reply.kind === 'ready') {
          clearTimeout(timer);
          resolve(started);
        } else started.onReply?.(reply);
      });
      worker.on('error', (error: Error & { code?: string }) => {
        lastError = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of memory (worker heap limit ${budget.maxHeapMb} MiB)` : `the query worker failed: ${error.message}`;
      });
      worker.on('exit', () => {
        clearTimeout(timer);
        if (slot === started) slot = null;
        reject(new Error(`the Custom query worker exited while starting${lastError ? `: ${lastError}` : ''}`));
        started.onExit?.(lastError || 'the query worker exited');
      });
    });
  }

  /** Hands the block to the worker and waits until it is indexed; a message when the worker died of it. */
  function sendBlock(current: Slot, block: BlockData, ancestors: readonly BlockData[]): Promise<string | null> {
    const hash = block.header.hash.toLowerCase();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (slot === current) slot = null;
        current.onExit = undefined;
        void current.worker.terminate();
        done(`the block was not indexed by the query worker within ${startTimeoutMs} ms`);
      }, startTimeoutMs);
      const done = (problem: string | null) => {
        clearTimeout(timer);
        current.onReply = undefined;
        current.onExit = undefined;
        if (problem === null) {
          current.blockHash = hash;
          current.ancestorCount = ancestors.length;
        }
        resolve(problem);
      };
      current.onExit = (reason) => done(`the query worker could not hold the block: ${reason}`);
      current.onReply = (reply) => {
        if (reply.kind === 'blockReady' && reply.hash === hash) done(null);
      };
      current.worker.postMessage({ kind: 'block', block, ancestors: [...ancestors] } satisfies QueryWorkerRequest);
    });
  }

  async function runNow(block: BlockData, ancestors: readonly BlockData[], query: string, variables: Record<string, unknown>): Promise<QueryRunOutcome> {
    slot ??= await spawn();
    const current = slot;
    const hash = block.header.hash.toLowerCase();
    // A query reaching deeper through `parent` than the ones before it needs the longer chain.
    if (current.blockHash !== hash || current.ancestorCount < ancestors.length) {
      const problem = await sendBlock(current, block, ancestors);
      if (problem) return { ok: false, reason: problem, elapsedMs: 0 };
    }
    const id = nextId++;
    const startedAt = performance.now();
    const elapsed = () => Math.round(performance.now() - startedAt);
    return new Promise<QueryRunOutcome>((resolve) => {
      const settle = (outcome: QueryRunOutcome) => {
        clearTimeout(timer);
        current.onReply = undefined;
        current.onExit = undefined;
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        // A query past its time is stopped by ending its worker; the next run starts another.
        if (slot === current) slot = null;
        current.onExit = undefined;
        void current.worker.terminate();
        settle({ ok: false, reason: `ran longer than ${budget.timeMs} ms`, elapsedMs: elapsed() });
      }, budget.timeMs);
      current.onExit = (reason) => settle({ ok: false, reason, elapsedMs: elapsed() });
      current.onReply = (reply) => {
        if (!('id' in reply) || reply.id !== id) return;
        if (reply.kind === 'result') {
          settle({ ok: true, data: reply.json === null ? null : (JSON.parse(reply.json) as Record<string, unknown>), errors: reply.errors, empty: reply.empty, elapsedMs: elapsed() });
        } else if (reply.kind === 'tooLarge') {
          const measured = reply.bytes === undefined ? '' : ` (${reply.bytes} bytes)`;
          settle({ ok: false, reason: `the notification would be larger than ${budget.maxResultBytes} bytes${measured}`, elapsedMs: elapsed() });
        } else {
          settle({ ok: false, reason: `the query failed: ${reply.message}`, elapsedMs: elapsed() });
        }
      };
      current.worker.postMessage({ kind: 'run', id, query, variables, maxResultBytes: budget.maxResultBytes } satisfies QueryWorkerRequest);
    });
  }

  return {
    run(block, ancestors, query, variables = {}) {
      const result = queue.then(() => runNow(block, ancestors, query, variables));
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      await queue;
      const last = slot;
      slot = null;
      if (last) await last.worker.terminate();
    },
  };
}
