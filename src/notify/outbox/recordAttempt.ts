// The outbox's result side: stores one attempt in the log and moves its delivery to the next state
// (succeeded / pending retry / failed), advances the webhook's first-time cursor, and tracks
// continuous failure for auto-pause, all in one transaction.
import type { SqlDatabase, SqlExecutor } from '../../store/sql.js';
import { claimNextHead, type ClaimOptions, type DeliveryJob } from './claimDeliveries.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** What happened on the wire. */
export interface AttemptLog {
  id: string;
  attemptedAt: number;
  latencyMs: number;
  /** HTTP status; null when no response arrived (timeout, refused, DNS, SSRF block). */
  statusCode: number | null;
  error: string | null;
  /** First bytes of the response body (already truncated). */
  responseBody: string | null;
  /** The request headers as sent (signatures included, never a key); null when not known. */
  requestHeaders: Readonly<Record<string, string>> | null;
}

/** The state the delivery moves to (decided by the retry schedule). */
export interface NextState {
  status: DeliveryStatus;
  nextAttemptAt: number;
  retryDeadlineAt: number | null;
}

export type AttemptOutcome = 'succeeded' | 'retrying' | 'failed' | 'stale';

export interface RecordResult {
  outcome: AttemptOutcome;
  /** True when this failure paused the webhook (continuous failure past the limit). */
  autoPaused: boolean;
  /** The webhook's next first-time delivery, leased in the same transaction (when `continueWith` was given). */
  next: DeliveryJob | null;
}

/** One attempt to record. */
export interface RecordRequest {
  job: DeliveryJob;
  attempt: AttemptLog;
  next: NextState;
  /** Pause the webhook when it has failed without a success for this long; null never. */
  autoPauseAfterMs: number | null;
  /** After a first-time attempt, also lease the webhook's next first-time delivery. */
  continueWith?: ClaimOptions;
}

/**
 * Records an attempt inside the caller's transaction. When the worker no longer holds the lease
 * (it expired and another worker took the row) only the log line is written, outcome `stale`.
 */
export async function recordAttemptIn(tx: SqlExecutor, dialect: SqlDatabase['dialect'], request: RecordRequest): Promise<RecordResult> {
  const { job, attempt, next, autoPauseAfterMs, continueWith } = request;
  const success = next.status === 'succeeded';
  const now = attempt.attemptedAt;
  // Lock order webhook → delivery everywhere (as appendEvents and the cascade of DELETE webhook).
  const lock = dialect === 'postgres' ? ' FOR UPDATE' : '';
  const exists = (await tx.query(`SELECT id FROM webhooks WHERE id = $1${lock}`, [job.webhookId])).length > 0;
  // Deleted meanwhile: its events, deliveries and log are gone with it.
  if (!exists) return { outcome: 'stale', autoPaused: false, next: null };
  const applied =
    (await tx.execute(
      `UPDATE webhook_deliveries SET status = $3, first_attempted = 1, attempts = attempts + 1, next_attempt_at = $4,
         retry_deadline_at = $5, lease_owner = NULL, lease_expires_at = NULL, last_attempt_at = $6, last_status_code = $7,
         last_error = $8, delivered_at = COALESCE($9, delivered_at)
       WHERE event_id = $1 AND lease_owner = $2`,
      [job.eventId, job.workerId, next.status, next.nextAttemptAt, next.retryDeadlineAt, now, attempt.statusCode, attempt.error, success ? now : null],
    )) === 1;
  if (applied && !job.firstAttempted) {
    await tx.execute('UPDATE webhooks SET first_done_seq = $2 WHERE id = $1 AND first_done_seq = $3', [job.webhookId, job.seq, job.seq - 1]);
  }
  let autoPaused = false;
  if (success) {
    await tx.execute('UPDATE webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [job.webhookId]);
  } else {
    await tx.execute('UPDATE webhooks SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL', [job.webhookId, now]);
    if (autoPauseAfterMs !== null) {
      autoPaused =
        (await tx.execute(
          `UPDATE webhooks SET paused_at = $2, paused_reason = 'auto', updated_at = $2
           WHERE id = $1 AND paused_at IS NULL AND failing_since IS NOT NULL AND failing_since <= $3`,
          [job.webhookId, now, now - autoPauseAfterMs],
        )) === 1;
    }
  }
  const outcome: AttemptOutcome = !applied ? 'stale' : success ? 'succeeded' : next.status === 'failed' ? 'failed' : 'retrying';
  await tx.execute(
    `INSERT INTO webhook_attempts (id, webhook_id, event_id, attempted_at, latency_ms, status_code, error, response_body, first_attempt, outcome, request_headers)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      attempt.id,
      job.webhookId,
      job.eventId,
      now,
      attempt.latencyMs,
      attempt.statusCode,
      attempt.error,
      attempt.responseBody,
      job.firstAttempted ? 0 : 1,
      outcome,
      attempt.requestHeaders ? JSON.stringify(attempt.requestHeaders) : null,
    ],
  );
  const chained = applied && !job.firstAttempted && continueWith ? await claimNextHead(tx, dialect, job.webhookId, continueWith) : null;
  return { outcome, autoPaused, next: chained };
}

/** Records one attempt in its own transaction. */
export function recordAttempt(
  db: SqlDatabase,
  job: DeliveryJob,
  attempt: AttemptLog,
  next: NextState,
  autoPauseAfterMs: number | null,
  continueWith?: ClaimOptions,
): Promise<RecordResult> {
  return db.transaction((tx) => recordAttemptIn(tx, db.dialect, { job, attempt, next, autoPauseAfterMs, continueWith }));
}

/**
 * Records several attempts in one transaction (group commit); results in the order given. Rows
 * are locked in webhook-id order, the order every multi-webhook transaction uses, so concurrent
 * workers on PostgreSQL cannot deadlock on each other.
 */
export async function recordAttempts(db: SqlDatabase, requests: readonly RecordRequest[]): Promise<RecordResult[]> {
  const order = requests.map((_, i) => i).sort((a, b) => {
    const x = requests[a]!.job.webhookId;
    const y = requests[b]!.job.webhookId;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  return db.transaction(async (tx) => {
    const results: RecordResult[] = new Array(requests.length);
    for (const i of order) results[i] = await recordAttemptIn(tx, db.dialect, requests[i]!);
    return results;
  });
}
