// The delivery loop: lease due deliveries (bounded concurrency; one first-time delivery in flight
// per webhook), sign and POST each, record the attempt and reschedule or dead-letter. Wakes on
// demand (after an append or a finished attempt), at the next due retry, or every poll interval.
import { hostname } from 'node:os';
import type { SqlDatabase } from '../../store/sql.js';
import { systemClock, type Clock } from '../clock.js';
import { silentLogger, type NotifyLogger } from '../notifyLogger.js';
import { createWebhookIds, type WebhookIds } from '../webhooks/webhookIds.js';
import { claimDeliveries, nextWakeAt, releaseLeases, renewLeases, type DeliveryJob } from '../outbox/claimDeliveries.js';
import { createAttemptRecorder } from './attemptRecorder.js';
import { nextDeliveryState, parseRetryAfterMs, type RetryScheduleOptions } from './retrySchedule.js';
import { notificationHeaders } from './signNotification.js';
import type { NotificationSender } from './sendNotification.js';
import type { WallStepFollower } from './wallStepFollower.js';

export interface DeliveryWorkerOptions {
  db: SqlDatabase;
  sender: NotificationSender;
  retry: RetryScheduleOptions;
  /** Pause a webhook that has failed without a success for this long; null never pauses. */
  autoPauseAfterMs: number | null;
  /**
   * How long a claimed row stays this worker's; a crashed worker's rows return after it. Without
   * `leaseRenewMs` it must outlast one attempt (timeout + DNS + recording).
   */
  leaseMs: number;
  /**
   * Renew the leases of attempts in flight this often (a heartbeat), so `leaseMs` can be a few
   * seconds however long an attempt takes. Off by default (SQLite frees every lease at start).
   */
  leaseRenewMs?: number;
  clock?: Clock;
  /**
   * Follows steps of the system clock (a process owning its store): when one is seen, claiming
   * pauses until the attempts in flight are recorded, then the stored schedule and the clock move.
   */
  wallSteps?: WallStepFollower;
  random?: () => number;
  ids?: WebhookIds;
  logger?: NotifyLogger;
  /** Attempts in flight at once across all webhooks. */
  concurrency?: number;
  /** Longest sleep between looks at the outbox (other processes' appends, missed wakes). */
  pollIntervalMs?: number;
  /** Unique per process; defaults to host:pid:random. */
  workerId?: string;
  userAgent?: string;
  /** More header names carrying the X-Service-Signature value (e.g. X-Alchemy-Signature). */
  signatureAliases?: readonly string[];
  /** Told of every recorded attempt (the /metrics series): the notification's type, outcome and latency. */
  onAttempt?: (attempt: DeliveryAttemptReport) => void;
}

/** One recorded attempt, for metrics. */
export interface DeliveryAttemptReport {
  /** The notification's `type` (ADDRESS_ACTIVITY, NFT_ACTIVITY, GRAPHQL, …). */
  type: string;
  outcome: 'succeeded' | 'retrying' | 'failed' | 'stale';
  latencyMs: number;
}

/** The envelope's `type`: serializeNotification writes it before `event`, so the first match is the envelope's. */
const ENVELOPE_TYPE = /"type":"([A-Z_]+)"/;

export interface DeliveryWorker {
  readonly workerId: string;
  /** Starts the background loop. */
  start(): void;
  /** Stops claiming, waits up to `timeoutMs` for attempts in flight, then releases this worker's leases. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** Looks for due work now (call after committing appended events). */
  wake(): void;
  /**
   * Claims what is due now, runs those attempts and resolves when they are recorded; returns how
   * many ran. For tests and tools driving a manual clock; do not mix with start().
   */
  runOnce(): Promise<number>;
  /** Attempts currently in flight. */
  inFlight(): number;
}

export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, sender } = options;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const ids = options.ids ?? createWebhookIds();
  const logger = options.logger ?? silentLogger;
  const concurrency = options.concurrency ?? 32;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const userAgent = options.userAgent ?? 'Tracehook-Webhooks/1';
  const workerId = options.workerId ?? `${hostname()}:${process.pid}:${ids.attemptId().slice(4, 12)}`;
  const recorder = createAttemptRecorder(db);
  const inFlight = new Map<string, Promise<void>>();
  let running = false;
  let ticking = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let renewTimer: NodeJS.Timeout | undefined;
  /** Claims failed in a row (the store unreachable): the next look backs off, up to 5 s. */
  let claimFailures = 0;
  /** A wall-clock step was seen: nothing new starts until it is followed. */
  let stepping = false;

  function renew(): void {
    if (inFlight.size === 0) return;
    renewLeases(db, workerId, clock.now() + options.leaseMs).catch((error: unknown) => logger.warn({ err: error }, 'renewing webhook leases failed'));
  }

  /** Runs one attempt; returns the webhook's next first-time delivery when it was leased on the way. */
  async function attempt(job: DeliveryJob): Promise<DeliveryJob | null> {
    const attemptedAt = clock.now();
    const body = Buffer.from(job.body, 'utf8');
    const headers = notificationHeaders(job.eventId, body, job.signingKeys, attemptedAt, userAgent, options.signatureAliases);
    const result = await options.sender.send(job.url, body, headers);
    const finishedAt = clock.now();
    const next = nextDeliveryState(
      {
        statusCode: result.statusCode,
        attemptedAt: finishedAt,
        attemptsBefore: job.attempts,
        retryDeadlineAt: job.retryDeadlineAt,
        retryAfterMs: parseRetryAfterMs(result.retryAfter, finishedAt),
      },
      random,
      options.retry,
    );
    const log = { id: ids.attemptId(), attemptedAt, latencyMs: result.latencyMs, statusCode: result.statusCode, error: result.error, responseBody: result.responseBody, requestHeaders: headers };
    // While running, a finished first-time attempt leases its webhook's next event in the same
    // transaction, so an ordered stream needs no extra claim round trip per event.
    const continueWith = running && !job.firstAttempted ? { workerId, nowMs: clock.now(), leaseMs: options.leaseMs, limit: 1 } : undefined;
    const recorded = await recorder.record({ job, attempt: log, next, autoPauseAfterMs: options.autoPauseAfterMs, continueWith });
    options.onAttempt?.({ type: ENVELOPE_TYPE.exec(job.body)?.[1] ?? 'unknown', outcome: recorded.outcome, latencyMs: result.latencyMs });
    const fields = { webhookId: job.webhookId, eventId: job.eventId, statusCode: result.statusCode, outcome: recorded.outcome };
    if (recorded.outcome === 'succeeded') logger.debug({ ...fields, latencyMs: result.latencyMs }, 'webhook delivered');
    else logger.warn({ ...fields, error: result.error, nextAttemptAt: next.status === 'pending' ? next.nextAttemptAt : undefined }, 'webhook delivery failed');
    if (recorded.autoPaused) logger.warn({ webhookId: job.webhookId }, 'webhook paused after failing continuously');
    return recorded.next;
  }

  function launch(job: DeliveryJob): Promise<void> {
    inFlight.set(job.eventId, Promise.resolve());
    const p = attempt(job).then(
      (chained) => {
        inFlight.delete(job.eventId);
        // The chained job takes this one's slot; other work is found by the poll timer or a wake.
        if (chained && running && !stepping) void launch(chained);
        else if (chained) void releaseLeases(db, workerId, [chained.eventId]).catch(() => undefined);
        else if (running) wake();
      },
      (error: unknown) => {
        inFlight.delete(job.eventId);
        logger.error({ webhookId: job.webhookId, eventId: job.eventId, err: error }, 'webhook attempt not recorded; it returns when its lease expires');
        if (running) wake();
      },
    );
    inFlight.set(job.eventId, p);
    return p;
  }

  /**
   * The time the last claim looked at. The next wake-up is searched from there, not from the time
   * the search runs: a retry or lease falling due while a slow claim ran was in neither query.
   */
  let claimedUpTo = clock.now();
  const claim = (limit: number) => {
    const nowMs = clock.now();
    claimedUpTo = nowMs;
    return claimDeliveries(db, { workerId, nowMs, leaseMs: options.leaseMs, limit });
  };
  /** Bumped by every schedule(): an older one still waiting for its query does not set the timer. */
  let scheduling = 0;

  async function schedule(): Promise<void> {
    if (!running) return;
    const mine = ++scheduling;
    let delay = claimFailures ? Math.min(pollIntervalMs * 2 ** claimFailures, 5_000) : pollIntervalMs;
    // With attempts in flight their completion wakes us; idle, sleep until the next due retry.
    if (inFlight.size === 0 && claimFailures === 0) {
      const next = await nextWakeAt(db, claimedUpTo).catch(() => null);
      if (next !== null) delay = Math.min(delay, Math.max(0, next - clock.now()));
    }
    if (!running || mine !== scheduling) return;
    clearTimeout(timer);
    timer = setTimeout(wake, delay);
  }

  async function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        if (options.wallSteps && (stepping || options.wallSteps.pending() !== 0)) {
          // Attempts in flight were scheduled on the old timeline: their completions wake us.
          stepping = true;
          if (inFlight.size > 0) break;
          await options.wallSteps.follow();
          stepping = false;
        }
        const free = concurrency - inFlight.size;
        if (free <= 0 || !running) break;
        const jobs = await claim(free);
        claimFailures = 0;
        for (const job of jobs) void launch(job);
        if (jobs.length === free) again = true;
      } while (again && running);
    } catch (error) {
      claimFailures++;
      logger.error({ err: error, retryInMs: Math.min(pollIntervalMs * 2 ** claimFailures, 5_000) }, 'claiming webhook deliveries failed');
    } finally {
      ticking = false;
    }
    await schedule();
  }

  function wake(): void {
    if (!running) return;
    clearTimeout(timer);
    timer = undefined;
    void tick();
  }

  return {
    workerId,
    start() {
      if (running) return;
      running = true;
      if (options.leaseRenewMs) renewTimer = setInterval(renew, options.leaseRenewMs);
      wake();
    },
    async stop(stopOptions = {}) {
      running = false;
      clearTimeout(timer);
      const pending = [...inFlight.values()];
      if (pending.length) {
        let waitTimer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((r) => (waitTimer = setTimeout(r, stopOptions.timeoutMs ?? 5_000)));
        await Promise.race([Promise.allSettled(pending), waited]);
        clearTimeout(waitTimer);
      }
      clearInterval(renewTimer);
      await releaseLeases(db, workerId).catch((error: unknown) => logger.error({ err: error }, 'releasing webhook leases failed'));
      sender.close();
    },
    wake,
    async runOnce() {
      const jobs = await claim(concurrency - inFlight.size);
      await Promise.all(jobs.map(launch));
      return jobs.length;
    },
    inFlight: () => inFlight.size,
  };
}
