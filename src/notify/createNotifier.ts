// Wires the notify pipeline's runtime: URL policy, HTTP sender, delivery worker and the outbox
// append entry point the chain follower calls. One notifier per process.
import type { SqlDatabase, SqlExecutor } from '../store/sql.js';
import type { Clock } from './clock.js';
import { createSteadyClock, isSteppableClock } from './steadyClock.js';
import { createWallStepFollower } from './deliver/wallStepFollower.js';
import { silentLogger, type NotifyLogger } from './notifyLogger.js';
import { createWebhookIds, type RandomBytes } from './webhooks/webhookIds.js';
import { RETRY_WINDOW_MS, type WebhookTier } from './webhooks/webhookTypes.js';
import { createUrlPolicy, type UrlPolicy, type UrlPolicyOptions } from './ssrf/urlPolicy.js';
import { createNotificationSender } from './deliver/sendNotification.js';
import { createDeliveryWorker, type DeliveryWorkerOptions } from './deliver/deliveryWorker.js';
import { DEFAULT_RETRY_SCHEDULE } from './deliver/retrySchedule.js';
import { appendEvents, type AppendedEvent, type OutboxEvent } from './outbox/appendEvents.js';
import { createRetentionPruner, type RetentionPruner } from './outbox/retentionPruner.js';
import type { RetentionPolicy } from './outbox/pruneFinished.js';

/** Delivered events are kept 30 days, dead letters 90 (time to notice and replay them). */
export const DEFAULT_RETENTION: RetentionPolicy = { deliveredMs: 30 * 24 * 3600_000, deadLetterMs: 90 * 24 * 3600_000 };

export interface NotifierOptions {
  db: SqlDatabase;
  /**
   * Default: a steady clock (steadyClock.ts) whose wall-clock steps the worker follows. On
   * PostgreSQL pass the database's clock (databaseClock.ts), which every process shares.
   */
  clock?: Clock;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Source of ids and signing keys. */
  randomBytes?: RandomBytes;
  logger?: NotifyLogger;
  /** Tier of the team (one auth token for now): sets the retry window. Default enterprise. */
  tier?: WebhookTier;
  /** Timeout of one delivery attempt. Default 10 000. */
  fetchTimeoutMs?: number;
  /** Attempts in flight at once. Default 32. */
  concurrency?: number;
  /** Default 250. */
  pollIntervalMs?: number;
  /**
   * How long a claimed delivery stays this worker's. SQLite: fetchTimeoutMs + 10 000 (one process;
   * its leases are freed at start). PostgreSQL: 3 000, renewed every second while the attempt
   * runs, so a killed worker's deliveries return to the others within 3 s.
   */
  leaseMs?: number;
  /**
   * Wake-ups shared between processes (PostgreSQL LISTEN/NOTIFY): `wake()` also tells the workers
   * of other processes, and theirs wake this one's.
   */
  wakeChannel?: WakeChannel;
  /** First retry delay before jitter. Default 1 000. */
  retryBaseDelayMs?: number;
  /** Cap of the retry delay before jitter. Default 120 000. */
  retryMaxDelayMs?: number;
  /** Overrides the tier's retry window (10 min free/payg, 1 h enterprise). */
  retryWindowMs?: number;
  /** Pause a webhook failing without a success for this long; null disables. Default 24 h. */
  autoPauseAfterMs?: number | null;
  /** Allow loopback webhook URLs (the embedded dev default true; production false). */
  allowLoopbackUrls?: boolean;
  /** Allow private/link-local/reserved webhook URLs. Default false. */
  allowPrivateUrls?: boolean;
  /** Hosts, IPs or CIDRs allowed whatever they resolve to. */
  allowList?: readonly string[];
  /** DNS resolver for the URL policy (tests); defaults to the system resolver. */
  resolve?: UrlPolicyOptions['resolve'];
  /** Response bytes read per attempt. Default 64 KiB. */
  maxResponseBytes?: number;
  /** Response bytes kept in the delivery log. Default 1 KiB. */
  storedResponseBytes?: number;
  workerId?: string;
  /**
   * More header names that carry the X-Service-Signature value, e.g. `['X-Alchemy-Signature']` so
   * listeners written for the hosted provider verify unchanged. Default none.
   */
  signatureAliases?: readonly string[];
  /** Told of every recorded delivery attempt (the /metrics series). */
  onAttempt?: DeliveryWorkerOptions['onAttempt'];
  /** How long finished events are kept (null: forever). Default DEFAULT_RETENTION. */
  retention?: RetentionPolicy;
  /** Time between retention runs. Default a minute, or half the shortest bound when that is less (at least 1 s). */
  retentionIntervalMs?: number;
}

/** A wake-up every process hears (`store/postgres/notifyChannel.ts`). */
export interface WakeChannel {
  subscribe(listener: () => void): () => void;
  send(): void;
}

export interface Notifier {
  readonly workerId: string;
  readonly urlPolicy: UrlPolicy;
  readonly clock: Clock;
  readonly tier: WebhookTier;
  readonly retryWindowMs: number;
  /** Deadline of one attempt (also of the dashboard's Test Webhook). */
  readonly fetchTimeoutMs: number;
  /** Retention of finished events; runs while the delivery loop runs. */
  readonly retention: RetentionPruner;
  /** Starts the delivery loop. */
  start(): void;
  /** Graceful: stops claiming, lets attempts in flight finish (up to the attempt timeout), releases leases. */
  stop(): Promise<void>;
  /** Looks for due deliveries now; call after committing a transaction that appended events. */
  wake(): void;
  /** Runs what is due now and resolves when recorded (manual clock tests; not with start()). */
  runOnce(): Promise<number>;
  /**
   * The outbox contract for the chain follower: appends events in the caller's transaction.
   * Call inside the same `db.transaction` that stores the follower's cursor, then `wake()`.
   */
  appendEvents(tx: SqlExecutor, events: readonly OutboxEvent[]): Promise<AppendedEvent[]>;
}

function retentionIntervalMs(policy: RetentionPolicy): number {
  const bounds = [policy.deliveredMs, policy.deadLetterMs].filter((b): b is number => b !== null);
  return Math.max(1_000, Math.min(60_000, ...bounds.map((b) => b / 2)));
}

export function createNotifier(options: NotifierOptions): Notifier {
  const clock = options.clock ?? createSteadyClock();
  const logger = options.logger ?? silentLogger;
  const tier = options.tier ?? 'enterprise';
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 10_000;
  const retryWindowMs = options.retryWindowMs ?? RETRY_WINDOW_MS[tier];
  const ids = createWebhookIds(options.randomBytes);
  // On PostgreSQL other processes may deliver too: short leases, renewed while an attempt runs.
  const shared = options.db.dialect === 'postgres';
  let unsubscribe: (() => void) | undefined;
  const urlPolicy = createUrlPolicy({
    allowLoopback: options.allowLoopbackUrls ?? true,
    allowPrivateNetworks: options.allowPrivateUrls ?? false,
    allowList: options.allowList ?? [],
    resolve: options.resolve,
  });
  const sender = createNotificationSender({
    timeoutMs: fetchTimeoutMs,
    urlPolicy,
    maxResponseBytes: options.maxResponseBytes,
    storedResponseBytes: options.storedResponseBytes,
  });
  const worker = createDeliveryWorker({
    db: options.db,
    sender,
    clock,
    // A store other processes share is not moved by one process's view of a step.
    wallSteps: isSteppableClock(clock) && options.db.dialect === 'sqlite' ? createWallStepFollower(options.db, clock, logger) : undefined,
    random: options.random,
    ids,
    logger,
    concurrency: options.concurrency,
    pollIntervalMs: options.pollIntervalMs,
    leaseMs: options.leaseMs ?? (shared ? 3_000 : fetchTimeoutMs + 10_000),
    leaseRenewMs: shared ? 1_000 : undefined,
    workerId: options.workerId,
    signatureAliases: options.signatureAliases,
    onAttempt: options.onAttempt,
    autoPauseAfterMs: options.autoPauseAfterMs === undefined ? 24 * 60 * 60_000 : options.autoPauseAfterMs,
    retry: {
      baseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_SCHEDULE.baseDelayMs,
      maxDelayMs: options.retryMaxDelayMs ?? DEFAULT_RETRY_SCHEDULE.maxDelayMs,
      retryWindowMs,
    },
  });
  const policy = options.retention ?? DEFAULT_RETENTION;
  const retention = createRetentionPruner({ db: options.db, clock, logger, policy, intervalMs: options.retentionIntervalMs ?? retentionIntervalMs(policy) });
  return {
    workerId: worker.workerId,
    urlPolicy,
    clock,
    tier,
    retryWindowMs,
    fetchTimeoutMs,
    retention,
    start() {
      worker.start();
      retention.start();
      unsubscribe ??= options.wakeChannel?.subscribe(() => worker.wake());
    },
    stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      return Promise.all([worker.stop({ timeoutMs: fetchTimeoutMs + 1_000 }), retention.stop()]).then(() => undefined);
    },
    wake() {
      worker.wake();
      options.wakeChannel?.send();
    },
    runOnce: () => worker.runOnce(),
    appendEvents: (tx, events) => appendEvents(tx, events, { nowMs: clock.now(), ids }),
  };
}
