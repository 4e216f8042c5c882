// A pool of worker threads that run TraceJobs (traces, eth_call, eth_estimateGas), so EVM execution
// never holds the main thread's event loop. Each worker runs one job at a time and holds the next
// (JOBS_PER_WORKER; two while its jobs are short), so it starts one without waiting for the main
// thread to answer the last one and send another; a job held by a worker whose running job is slow
// is taken back when another worker goes idle. Jobs wait in a bounded queue per client key, served
// round-robin (fairJobQueue.ts): a key beyond its share fails at once with LimitExceededError while
// other keys are still admitted. A job whose client goes away leaves the queue at once, or, held or
// running, is cancelled in its worker (the guard throws at its next check; a worker silent past a
// grace is replaced). A worker that outlives its job's timeout (plus a grace) is terminated and
// replaced, and the job fails with the same timeout error as in-process; a worker that dies fails
// only its own job (InternalError).
import type { Worker } from 'node:worker_threads';
import { siblingWorkerUrl, startWorker } from '../../threads/startWorker.js';
import { InternalError, LimitExceededError } from '../../rpc/errors.js';
import type { ChainLogger } from '../chain/chainConfig.js';
import { ExecutionCancelledError, ExecutionTimeoutError } from '../execute/executionGuard.js';
import { createFairJobQueue } from './fairJobQueue.js';
import type { JobScope, TraceJob } from './traceJob.js';
import type { RemoteCaller } from '../state/remoteTrieNodes.js';
import { errorFromWire, errorToWire, type RemoteCallAnswer, type TraceWorkerData, type WorkerCancel, type WorkerReply, type WorkerRequest, type WorkerWithdraw } from './traceWorkerProtocol.js';

export interface TracePoolOptions {
  /** Worker threads (at least 1). */
  size: number;
  /** What each worker opens: the chain's data dir and rules, and the traced calls' gas cap. */
  worker: TraceWorkerData;
  /** Most jobs that may wait for a worker; one more is refused with LimitExceededError. Default 256. */
  maxQueuedJobs?: number;
  /**
   * Jobs one key may always hold in the queue; beyond it a key holds at most
   * max(this, floor(maxQueuedJobs / keys with waiting jobs)). Default 8.
   */
  minKeyShare?: number;
  /**
   * How long past a job's own timeout its worker may stay silent before it is terminated, and how
   * long a cancelled job's worker may take to stop; default 1000 ms.
   */
  killGraceMs?: number;
  /** Jobs count as short while a worker's answers come this many ms apart or less; default SHORT_JOB_MS. */
  shortJobMs?: number;
  /** The worker script; default traceWorker.js (or .ts from source) beside this module. */
  workerUrl?: URL;
  logger?: ChainLogger;
  /** Fork mode: sends the workers' remote calls (WorkerRemoteCall) with the main thread's client. */
  remote?: RemoteCaller;
}

export interface TracePoolStats {
  workers: number;
  /** Workers still opening the chain (they take jobs once ready). */
  starting: number;
  busy: number;
  /** Jobs a worker holds to run after its current one. */
  ahead: number;
  queued: number;
  /** Client keys with jobs waiting. */
  queuedKeys: number;
  /** Jobs waiting per key class (the requester's tier; `internal` for jobs that name none). */
  queuedByClass: Record<string, number>;
  /** Workers replaced after a crash or a timeout since the pool started. */
  replaced: number;
  /** Jobs given up because their client went away (taken out of the queue or stopped running). */
  cancelled: number;
}

export interface TracePool {
  /**
   * Runs `job` on a worker; resolves with its JSON texts or rejects with the job's error. The job
   * waits in `scope.clientKey`'s queue (one shared key when absent) and is given up with
   * ExecutionCancelledError when `scope.signal` aborts (or `scope.onCancel` tells so).
   */
  run(job: TraceJob, scope?: JobScope): Promise<string[]>;
  stats(): TracePoolStats;
  /** Fails queued and running jobs and stops the workers. */
  close(): Promise<void>;
}

interface Pending {
  id: number;
  job: TraceJob;
  key: string;
  keyClass: string;
  signal: AbortSignal | undefined;
  /** Takes the job's cancel listener off its scope (JobScope.onCancel), when it has one. */
  unwatch: (() => void) | undefined;
  settled: boolean;
  resolve(texts: string[]): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Jobs sent to the worker, in the order it runs them: the first runs, the rest wait in it. */
  sent: Pending[];
  /** When the worker is stuck unless sent[0] is answered first (performance.now() ms); none while idle. */
  deadline?: number;
  /** The timer that checks `deadline`, and when it fires: it may fire early and is then set again. */
  timer?: NodeJS.Timeout;
  timerAt?: number;
  /** The id of a job asked back (WorkerWithdraw) and not yet answered for. */
  withdrawing?: number;
  /** When sent[0] became the job the worker runs (performance.now() ms). */
  headSince?: number;
  /** How long the worker's recent jobs ran, ms (a moving average of the time each was sent[0]). */
  recentJobMs?: number;
}

/**
 * Jobs a worker holds at once: the one it runs and the next. Measured with one worker on 2 cores
 * (docs/performance.md, "A worker holds its next job"): with one, the worker idled about 45% of the
 * time between a reply and the next job.
 */
export const JOBS_PER_WORKER = 2;

/**
 * Jobs a worker holds while its jobs are short (SHORT_JOB_MS): one more, so it less often runs out
 * of work, sleeps and has to be woken for the next job: distinct traced calls gave 5–8% more
 * answers per second at 2–5% less CPU per answer (session 17, bench/abBuilds.bench.ts). Only for
 * short jobs, so another key's job waits behind at most one more job of about a millisecond.
 */
export const JOBS_PER_WORKER_SHORT = 3;

/** A worker's jobs are short while its recent answers came this many ms apart or less (on average). */
export const SHORT_JOB_MS = 2;

/** The queue key of jobs that name no client (internal work, tests). */
const NO_KEY = '';

export const DEFAULT_MAX_QUEUED_JOBS = 256;

function countByClass(waiting: Iterable<Pending>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of waiting) counts[p.keyClass] = (counts[p.keyClass] ?? 0) + 1;
  return counts;
}

/** Starts `options.size` workers. */
export function createTracePool(options: TracePoolOptions): TracePool {
  const killGraceMs = options.killGraceMs ?? 1000;
  const shortJobMs = options.shortJobMs ?? SHORT_JOB_MS;
  const maxQueuedJobs = options.maxQueuedJobs ?? DEFAULT_MAX_QUEUED_JOBS;
  const workerUrl = options.workerUrl ?? siblingWorkerUrl(import.meta.url, 'traceWorker');
  const queue = createFairJobQueue<Pending>({ limit: maxQueuedJobs, minShare: options.minKeyShare });
  /** Jobs a worker gave back (withdrawn, or held by a worker that died): they go out before the queue. */
  const returned: Pending[] = [];
  const slots: Slot[] = [];
  // One abort listener per signal (a batch shares one among all its calls), not one per job.
  const bySignal = new Map<AbortSignal, Set<Pending>>();
  let nextId = 1;
  let replaced = 0;
  let cancelled = 0;
  let closed = false;

  function forget(pending: Pending): void {
    if (pending.unwatch) {
      pending.unwatch();
      pending.unwatch = undefined;
    }
    const { signal } = pending;
    const set = signal && bySignal.get(signal);
    if (!set) return;
    set.delete(pending);
    if (set.size === 0) {
      bySignal.delete(signal);
      signal.removeEventListener('abort', onAbort);
    }
  }

  function settle(pending: Pending, outcome: { texts: string[] } | { error: Error }): void {
    if (pending.settled) return;
    pending.settled = true;
    forget(pending);
    if ('texts' in outcome) pending.resolve(outcome.texts);
    else pending.reject(outcome.error);
  }

  function onAbort(event: Event): void {
    const set = bySignal.get(event.target as AbortSignal);
    if (!set) return;
    for (const pending of [...set]) cancel(pending);
  }

  /** Gives up `pending`: out of the queue or a worker's hold at once, or a cancel to the worker running it. */
  function cancel(pending: Pending): void {
    if (pending.settled) return;
    cancelled++;
    const slot = slots.find((s) => s.sent.includes(pending));
    if (slot && slot.sent[0] === pending) {
      slot.worker.postMessage({ cancel: pending.id } satisfies WorkerCancel);
      // The guard yields every 20 ms; a worker that does not answer soon is replaced.
      watch(slot, performance.now() + killGraceMs);
    } else if (slot) {
      // Held: the worker drops it and answers at once, or, if it has just started it, aborts it. It
      // stays in `sent` until that answer, so the pool and the worker agree on what runs.
      slot.worker.postMessage({ cancel: pending.id } satisfies WorkerCancel);
    } else if (returned.includes(pending)) {
      returned.splice(returned.indexOf(pending), 1);
    } else {
      queue.remove(pending.key, pending);
    }
    settle(pending, { error: new ExecutionCancelledError() });
  }

  function spawn(): Slot {
    const slot: Slot = { worker: startWorker(workerUrl, { workerData: options.worker }), ready: false, sent: [] };
    slot.worker.on('message', (reply: WorkerReply) => onReply(slot, reply));
    slot.worker.on('error', (error) => options.logger?.error({ err: error }, 'trace worker failed'));
    slot.worker.on('exit', (code) => onExit(slot, code));
    return slot;
  }

  /**
   * Sets the time past which `slot`'s worker counts as stuck (none: idle). A timer already set to
   * fire by then is kept and, firing early, set again for what is left: under load one job follows
   * another with the same timeout, and a timer made and cleared per job cost the main thread about
   * 4 µs a job.
   */
  function watch(slot: Slot, deadline: number | undefined): void {
    slot.deadline = deadline;
    if (deadline === undefined) {
      clearTimeout(slot.timer);
      slot.timer = undefined;
    } else if (slot.timer === undefined || slot.timerAt! > deadline) {
      clearTimeout(slot.timer);
      startTimer(slot, deadline);
    }
  }

  function startTimer(slot: Slot, at: number): void {
    slot.timerAt = at;
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      const { deadline } = slot;
      if (deadline === undefined) return;
      if (performance.now() >= deadline) onStuck(slot);
      else startTimer(slot, deadline);
    }, Math.max(0, at - performance.now()));
  }

  /** Starts the stuck clock of the job `slot`'s worker runs now, if any. */
  function armHead(slot: Slot): void {
    const head = slot.sent[0];
    const now = performance.now();
    slot.headSince = head && now;
    watch(slot, head && now + head.job.timeoutMs + killGraceMs);
  }

  /** Notes how long `slot`'s head job ran, now that it is answered. */
  function timeHead(slot: Slot): void {
    if (slot.headSince === undefined) return;
    const ms = performance.now() - slot.headSince;
    slot.recentJobMs = slot.recentJobMs === undefined ? ms : slot.recentJobMs * 0.75 + ms * 0.25;
  }

  /** Jobs `slot`'s worker may hold now. */
  function holdsFor(slot: Slot): number {
    return slot.recentJobMs !== undefined && slot.recentJobMs <= shortJobMs ? JOBS_PER_WORKER_SHORT : JOBS_PER_WORKER;
  }

  /** Empties `slot` (its worker is gone): returns the job it ran; the jobs it held go back out first. */
  function empty(slot: Slot): Pending | undefined {
    watch(slot, undefined);
    const [head, ...held] = slot.sent.splice(0);
    returned.unshift(...held);
    return head;
  }

  function onReply(slot: Slot, reply: WorkerReply): void {
    if ('remote' in reply) {
      const answer = (message: RemoteCallAnswer) => {
        if (slots.includes(slot)) slot.worker.postMessage(message);
      };
      if (!options.remote) answer({ remoteReply: reply.remote, ok: false, error: errorToWire(new InternalError('no fork remote')) });
      else options.remote.call(reply.method, reply.params).then(
        (result) => answer({ remoteReply: reply.remote, ok: true, result }),
        (error: unknown) => answer({ remoteReply: reply.remote, ok: false, error: errorToWire(error) }),
      );
      return;
    }
    if ('ready' in reply) {
      slot.ready = true;
    } else {
      const id = 'withdrawn' in reply ? reply.withdrawn : reply.id;
      if (slot.withdrawing === id) slot.withdrawing = undefined;
      const index = slot.sent.findIndex((p) => p.id === id);
      if (index >= 0) {
        const [pending] = slot.sent.splice(index, 1) as [Pending];
        if (index === 0) {
          if (!('withdrawn' in reply)) timeHead(slot);
          armHead(slot);
        }
        if ('withdrawn' in reply) returned.unshift(pending);
        else settle(pending, reply.ok ? { texts: reply.texts } : { error: errorFromWire(reply.error) });
      }
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
    const pending = empty(slot);
    if (!closed) options.logger?.error({ exitCode: code, ready: slot.ready }, 'trace worker exited; replacing it');
    if (pending) settle(pending, { error: new InternalError(undefined, { details: `trace worker exited with code ${code}` }) });
    if (!slot.ready) {
      // It died while starting (e.g. an unreadable chain file): fail what waits rather than spin.
      for (const waiting of [...returned.splice(0), ...queue.drain()]) settle(waiting, { error: new InternalError(undefined, { details: 'trace worker failed to start' }) });
      slots.splice(slots.indexOf(slot), 1);
      return;
    }
    replace(slot);
    dispatch();
  }

  function onStuck(slot: Slot): void {
    const pending = empty(slot);
    if (!pending) return;
    options.logger?.warn({ timeoutMs: pending.job.timeoutMs, cancelled: pending.settled }, 'trace worker stuck past the timeout or a cancel; terminating it');
    settle(pending, { error: new ExecutionTimeoutError(pending.job.timeoutMs) });
    const { worker } = slot;
    replace(slot);
    void worker.terminate();
    dispatch();
  }

  /** The next job to send: a returned one first, then the queue's. Settled ones are skipped. */
  function takeNext(): Pending | undefined {
    for (;;) {
      const pending = returned.shift() ?? queue.shift();
      if (!pending || !pending.settled) return pending;
    }
  }

  function send(slot: Slot, pending: Pending): void {
    slot.sent.push(pending);
    if (slot.sent.length === 1) armHead(slot);
    slot.worker.postMessage({ id: pending.id, job: pending.job } satisfies WorkerRequest);
  }

  function dispatch(): void {
    // Workers that died while starting are started again when work arrives.
    while (!closed && slots.length < options.size) slots.push(spawn());
    // Only started workers take jobs, so a job's timer never counts a worker's start-up. Idle
    // workers first, then each a job to hold, then (while their jobs are short) another.
    const ready = slots.filter((s) => s.ready);
    for (let hold = 1; hold <= JOBS_PER_WORKER_SHORT; hold++) {
      for (const slot of ready) {
        if (slot.sent.length >= hold || hold > holdsFor(slot)) continue;
        const pending = takeNext();
        if (!pending) break;
        send(slot, pending);
      }
    }
    // A worker is idle with nothing waiting: ask a busy worker for a job it holds but has not started.
    if (returned.length > 0 || queue.size > 0 || !ready.some((s) => s.sent.length === 0)) return;
    const holder = ready.find((s) => s.sent.length > 1 && s.withdrawing === undefined && !s.sent.at(-1)!.settled);
    if (!holder) return;
    holder.withdrawing = holder.sent.at(-1)!.id;
    holder.worker.postMessage({ withdraw: holder.withdrawing } satisfies WorkerWithdraw);
  }

  dispatch();

  function refusal(reason: 'share' | 'full', share: number): LimitExceededError {
    if (reason === 'full') return new LimitExceededError(`trace queue is full (${maxQueuedJobs} traces waiting); retry later`, { beforeWork: true });
    return new LimitExceededError(
      `trace queue is full for this key (its share is ${share} of ${maxQueuedJobs} places while ${Math.max(1, queue.keys)} keys wait); retry later`,
      { beforeWork: true },
    );
  }

  return {
    run(job, scope) {
      if (closed) return Promise.reject(new InternalError(undefined, { details: 'trace pool is closed' }));
      // A scope's onCancel is read instead of its signal (which a call context makes only when asked).
      const signal = scope?.onCancel ? undefined : scope?.signal;
      if (signal?.aborted) return Promise.reject(new ExecutionCancelledError());
      return new Promise<string[]>((resolve, reject) => {
        const pending: Pending = { id: nextId++, job, key: scope?.clientKey ?? NO_KEY, keyClass: scope?.keyClass ?? 'internal', signal, unwatch: undefined, settled: false, resolve, reject };
        if (scope?.onCancel) {
          pending.unwatch = scope.onCancel(() => cancel(pending));
          if (!pending.unwatch) {
            reject(new ExecutionCancelledError());
            return;
          }
        }
        const pushed = queue.push(pending.key, pending);
        if (!pushed.ok) {
          pending.unwatch?.();
          reject(refusal(pushed.reason, pushed.share));
          return;
        }
        if (pushed.pushedOut) settle(pushed.pushedOut, { error: refusal('share', Math.max(1, Math.floor(maxQueuedJobs / queue.keys))) });
        if (signal) {
          let set = bySignal.get(signal);
          if (!set) {
            bySignal.set(signal, (set = new Set()));
            signal.addEventListener('abort', onAbort, { once: true });
          }
          set.add(pending);
        }
        dispatch();
      });
    },
    stats() {
      return {
        workers: slots.length,
        starting: slots.filter((s) => !s.ready).length,
        busy: slots.filter((s) => s.sent.length > 0).length,
        ahead: slots.reduce((n, s) => n + Math.max(0, s.sent.length - 1), 0),
        queued: queue.size + returned.length,
        queuedKeys: queue.keys,
        queuedByClass: countByClass([...returned, ...queue.waiting()]),
        replaced,
        cancelled,
      };
    },
    async close() {
      closed = true;
      const stopped = new InternalError(undefined, { details: 'trace pool is closed' });
      for (const waiting of [...returned.splice(0), ...queue.drain()]) settle(waiting, { error: stopped });
      const workers = slots.splice(0);
      for (const slot of workers) {
        const running = empty(slot);
        if (running) settle(running, { error: stopped });
      }
      for (const held of returned.splice(0)) settle(held, { error: stopped });
      await Promise.all(workers.map((s) => s.worker.terminate()));
    },
  };
}
