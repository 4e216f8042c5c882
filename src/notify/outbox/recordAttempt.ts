// The outbox's result side: stores one attempt in the log and moves its delivery to the next state
// (succeeded / pending retry / failed), advances the webhook's first-time cursor, and tracks
// continuous failure for auto-pause, all in one transaction.
import type { SqlDatabase } from '../../store/sql.js';
import type { DeliveryJob } from './claimDeliveries.js';

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
}

/**
 * Records an attempt of `job`. When the worker no longer holds the lease (it expired and another
 * worker took the row) only the log line is written, with outcome `stale`.
 *
 * @param autoPauseAfterMs pause the webhook when it has failed without a success for this long; null never.
 */
export async function recordAttempt(
  db: SqlDatabase,
  job: DeliveryJob,
  attempt: AttemptLog,
  next: NextState,
  autoPauseAfterMs: number | null,
): Promise<RecordResult> {
  const success = next.status === 'succeeded';
  const now = attempt.attemptedAt;
  return db.transaction(async (tx) => {
    // Lock order webhook → delivery everywhere (as appendEvents and the cascade of DELETE webhook).
    const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : '';
    const exists = (await tx.query(`SELECT id FROM webhooks WHERE id = $1${lock}`, [job.webhookId])).length > 0;
    // Deleted meanwhile: its events, deliveries and log are gone with it.
    if (!exists) return { outcome: 'stale', autoPaused: false };
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
      `INSERT INTO webhook_attempts (id, webhook_id, event_id, attempted_at, latency_ms, status_code, error, response_body, first_attempt, outcome)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [attempt.id, job.webhookId, job.eventId, now, attempt.latencyMs, attempt.statusCode, attempt.error, attempt.responseBody, job.firstAttempted ? 0 : 1, outcome],
    );
    return { outcome, autoPaused };
  });
}
