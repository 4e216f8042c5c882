// A pool of worker threads that run TraceJobs, so EVM execution never holds the main thread's
// event loop. Each worker runs one job at a time; jobs wait in a bounded FIFO queue (a job that
// finds it full fails at once with LimitExceededError). A worker that outlives
// its job's timeout (plus a grace) is terminated and replaced, and the job fails with the same
// timeout error as in-process; a worker that dies fails only its own job (InternalError).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InternalError, LimitExceededError } from '../../rpc/errors.js';
import type { ChainLogger } from '../chain/chainConfig.js';
import { ExecutionTimeoutError } from '../execute/executionGuard.js';
import type { TraceJob } from './traceJob.js';
import { errorFromWire, type TraceWorkerData, type WorkerReply, type WorkerRequest } from './traceWorkerProtocol.js';

export interface TracePoolOptions {
  /** Worker threads (at least 1). */
  size: number;
  /** What each worker opens: the chain's data dir and rules, and the traced calls' gas cap. */
  worker: TraceWorkerData;
  /** Most jobs that may wait for a worker; one more is refused with LimitExceededError. Default 256. */
  maxQueuedJobs?: number;
  /** How long past a job's own timeout its worker may stay silent before it is terminated; default 1000 ms. */
  killGraceMs?: number;
  /** The worker script; default traceWorker.js (or .ts from source) beside this module. */
  workerUrl?: URL;
  logger?: ChainLogger;
}

export interface TracePoolStats {
  workers: number;
  /** Workers still opening the chain (they take jobs once ready). */
  starting: number;
  busy: number;
  queued: number;
  /** Workers replaced after a crash or a timeout since the pool started. */
  replaced: number;
}

export interface TracePool {
  /** Runs `job` on a worker; resolves with its JSON texts or rejects with the job's error. */
  run(job: TraceJob): Promise<string[]>;
  stats(): TracePoolStats;
  /** Fails queued and running jobs and stops the workers. */
  close(): Promise<void>;
}

interface Pending {
  id: number;
  job: TraceJob;
  resolve(texts: string[]): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current?: Pending;
  timer?: NodeJS.Timeout;
}

/**
 * A worker running `url`. A .ts worker (tests and tsx runs from source) first registers tsx's
 * loader in the worker itself: on Node 20, `execArgv: ['--import', 'tsx']` does not reach a
 * worker's entry module (tsx registers its hooks on the main thread only).
 */
function startWorker(url: URL, workerData: TraceWorkerData): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData });
  const require = createRequire(import.meta.url);
  const tsxPackage = require.resolve('tsx/package.json');
  const exports = (require(tsxPackage) as { exports: Record<string, { import: { default: string } }> }).exports;
  const tsxApi = pathToFileURL(join(dirname(tsxPackage), exports['./esm/api']!.import.default)).href;
  const code = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { eval: true, workerData });
}

function defaultWorkerUrl(): URL {
  // From source (tests, tsx) the sibling is .ts; the build has .js.
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`./traceWorker.${ext}`, import.meta.url);
}

export const DEFAULT_MAX_QUEUED_JOBS = 256;

/** Starts `options.size` workers. */
export function createTracePool(options: TracePoolOptions): TracePool {
  const killGraceMs = options.killGraceMs ?? 1000;
  const maxQueuedJobs = options.maxQueuedJobs ?? DEFAULT_MAX_QUEUED_JOBS;
  const workerUrl = options.workerUrl ?? defaultWorkerUrl();
  const queue: Pending[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let replaced = 0;
  let closed = false;

  function spawn(): Slot {
    const slot: Slot = { worker: startWorker(workerUrl, options.worker), ready: false };
    slot.worker.on('message', (reply: WorkerReply) => onReply(slot, reply));
    slot.worker.on('error', (error) => options.logger?.error({ err: error }, 'trace worker failed'));
    slot.worker.on('exit', (code) => onExit(slot, code));
    return slot;
  }

  function finish(slot: Slot): Pending | undefined {
    const pending = slot.current;
    clearTimeout(slot.timer);
    slot.current = undefined;
    slot.timer = undefined;
    return pending;
  }

  function onReply(slot: Slot, reply: WorkerReply): void {
    if ('ready' in reply) {
      slot.ready = true;
    } else if (slot.current?.id === reply.id) {
      const pending = finish(slot)!;
      if (reply.ok) pending.resolve(reply.texts);
      else pending.reject(errorFromWire(reply.error));
    }
    dispatch();
  }

  /** Replaces `slot`'s worker; its job (if any) has been settled by the caller. */
  function replace(slot: Slot): void {
    const index = slots.indexOf(slot);
    if (index < 0) return;
    if (closed) {
      slots.splice(index, 1);
      return;
    }
    replaced++;
    slots[index] = spawn();
  }

  function onExit(slot: Slot, code: number): void {
    if (!slots.includes(slot)) return;
    const pending = finish(slot);
    if (!closed) options.logger?.error({ exitCode: code, ready: slot.ready }, 'trace worker exited; replacing it');
    pending?.reject(new InternalError(undefined, { details: `trace worker exited with code ${code}` }));
    if (!slot.ready) {
      // It died while starting (e.g. an unreadable chain file): fail what waits rather than spin.
      for (const waiting of queue.splice(0)) waiting.reject(new InternalError(undefined, { details: 'trace worker failed to start' }));
      slots.splice(slots.indexOf(slot), 1);
      return;
    }
    replace(slot);
    dispatch();
  }

  function onStuck(slot: Slot): void {
    const pending = finish(slot);
    if (!pending) return;
    options.logger?.warn({ timeoutMs: pending.job.timeoutMs }, 'trace worker stuck past the timeout; terminating it');
    pending.reject(new ExecutionTimeoutError(pending.job.timeoutMs));
    const { worker } = slot;
    replace(slot);
    void worker.terminate();
    dispatch();
  }

  function dispatch(): void {
    // Workers that died while starting are started again when work arrives.
    while (!closed && slots.length < options.size) slots.push(spawn());
    for (const slot of slots) {
      // Only started workers take jobs, so a job's timer never counts a worker's start-up.
      if (!slot.ready || slot.current || queue.length === 0) continue;
      const pending = queue.shift()!;
      slot.current = pending;
      slot.timer = setTimeout(() => onStuck(slot), pending.job.timeoutMs + killGraceMs);
      slot.worker.postMessage({ id: pending.id, job: pending.job } satisfies WorkerRequest);
    }
  }

  dispatch();

  return {
    run(job) {
      if (closed) return Promise.reject(new InternalError(undefined, { details: 'trace pool is closed' }));
      if (queue.length >= maxQueuedJobs) {
        return Promise.reject(new LimitExceededError(`trace queue is full (${maxQueuedJobs} traces waiting); retry later`));
      }
      return new Promise<string[]>((resolve, reject) => {
        queue.push({ id: nextId++, job, resolve, reject });
        dispatch();
      });
    },
    stats() {
      return { workers: slots.length, starting: slots.filter((s) => !s.ready).length, busy: slots.filter((s) => s.current).length, queued: queue.length, replaced };
    },
    async close() {
      closed = true;
      const stopped = new InternalError(undefined, { details: 'trace pool is closed' });
      for (const waiting of queue.splice(0)) waiting.reject(stopped);
      const workers = slots.splice(0);
      for (const slot of workers) finish(slot)?.reject(stopped);
      await Promise.all(workers.map((s) => s.worker.terminate()));
    },
  };
}
