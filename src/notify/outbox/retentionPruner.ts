// Runs the outbox's retention off the hot path: every `intervalMs` a few small prune batches, each
// its own short transaction, with a turn of the event loop between them, so neither deliveries
// nor requests wait behind a long delete. Started and stopped with the delivery worker.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SqlDatabase } from '../../store/sql.js';
import type { Clock } from '../clock.js';
import type { NotifyLogger } from '../notifyLogger.js';
import { pruneFinishedBatch, type PruneBatchResult, type RetentionPolicy } from './pruneFinished.js';

export interface RetentionPrunerOptions {
  db: SqlDatabase;
  clock: Clock;
  policy: RetentionPolicy;
  logger: NotifyLogger;
  /** Time between runs. Default 60 000. */
  intervalMs?: number;
  /** Events per transaction. Default 500. */
  batchSize?: number;
  /** Batches per run at most (the rest waits for the next run). Default 20. */
  maxBatchesPerRun?: number;
}

export interface RetentionPruner {
  readonly policy: RetentionPolicy;
  start(): void;
  /** Waits for a run in progress to end. */
  stop(): Promise<void>;
  /** One run now: batches until nothing is left or the per-run bound is reached. */
  runOnce(): Promise<PruneBatchResult>;
}

export function createRetentionPruner(options: RetentionPrunerOptions): RetentionPruner {
  const intervalMs = options.intervalMs ?? 60_000;
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatchesPerRun ?? 20;
  const enabled = options.policy.deliveredMs !== null || options.policy.deadLetterMs !== null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<PruneBatchResult> | undefined;
  let stopped = true;

  async function run(keepGoing: () => boolean): Promise<PruneBatchResult> {
    const total = { events: 0, attempts: 0 };
    for (let i = 0; i < maxBatches && keepGoing(); i++) {
      const r = await pruneFinishedBatch(options.db, { ...options.policy, nowMs: options.clock.now(), batchSize });
      total.events += r.events;
      total.attempts += r.attempts;
      if (r.events < batchSize && r.attempts < batchSize) break;
      await nextTurn();
    }
    if (total.events > 0 || total.attempts > 0) options.logger.debug({ events: total.events, attempts: total.attempts }, 'pruned finished webhook events');
    return total;
  }

  function schedule(): void {
    if (stopped || !enabled) return;
    timer = setTimeout(() => {
      running = run(() => !stopped)
        .catch((error: unknown) => {
          // A failed run (database down) is tried again at the next interval; nothing was half-deleted.
          options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'webhook retention run failed');
          return { events: 0, attempts: 0 };
        })
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, intervalMs);
    timer.unref();
  }

  return {
    policy: options.policy,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
    runOnce: () => run(() => true),
  };
}
