// Retention of the outbox: deletes finished events (delivered long enough ago, or dead letters
// past their own bound) with their delivery rows and attempt log, one small batch per
// transaction. A pending delivery (first-time, retrying or replayed) is never touched: every
// DELETE re-checks the status inside the transaction that removes it.
import type { SqlDatabase, SqlExecutor, SqlValue } from '../../store/sql.js';

/** How long finished events are kept; null keeps them forever. */
export interface RetentionPolicy {
  /** Delivered events, counted from the successful attempt. */
  deliveredMs: number | null;
  /** Dead letters (failed past the retry window), counted from their last attempt. */
  deadLetterMs: number | null;
}

export interface PruneBatchOptions extends RetentionPolicy {
  nowMs: number;
  /** Events removed at most by this call. */
  batchSize: number;
}

export interface PruneBatchResult {
  events: number;
  attempts: number;
}

function placeholders(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
}

async function pickFinished(tx: SqlExecutor, dialect: SqlDatabase['dialect'], status: 'succeeded' | 'failed', before: number, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  // PostgreSQL: rows another process is pruning or replaying right now are skipped, not waited on.
  const lock = dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  const rows = await tx.query<{ event_id: string }>(
    `SELECT event_id FROM webhook_deliveries WHERE status = $1 AND last_attempt_at < $2 ORDER BY last_attempt_at LIMIT $3${lock}`,
    [status, before, limit],
  );
  return rows.map((r) => r.event_id);
}

/**
 * Removes up to `batchSize` finished events older than the policy allows, in one transaction:
 * their attempts, delivery rows and stored bodies. Also drops pause lines of the attempt log
 * (no event) older than the delivered bound. Returns what went.
 */
export async function pruneFinishedBatch(db: SqlDatabase, options: PruneBatchOptions): Promise<PruneBatchResult> {
  return db.transaction(async (tx) => {
    const ids: string[] = [];
    if (options.deliveredMs !== null) ids.push(...(await pickFinished(tx, db.dialect, 'succeeded', options.nowMs - options.deliveredMs, options.batchSize)));
    if (options.deadLetterMs !== null) ids.push(...(await pickFinished(tx, db.dialect, 'failed', options.nowMs - options.deadLetterMs, options.batchSize - ids.length)));
    let attempts = 0;
    let events = 0;
    if (ids.length > 0) {
      const list = placeholders(1, ids.length);
      // The status is checked again: only rows still finished go, with the log and body of each.
      const deleted = await tx.query<{ event_id: string }>(
        `SELECT event_id FROM webhook_deliveries WHERE event_id IN (${list}) AND status <> 'pending'`,
        ids,
      );
      const gone = deleted.map((r) => r.event_id);
      if (gone.length > 0) {
        const goneList = placeholders(1, gone.length);
        attempts += await tx.execute(`DELETE FROM webhook_attempts WHERE event_id IN (${goneList})`, gone);
        await tx.execute(`DELETE FROM webhook_deliveries WHERE event_id IN (${goneList}) AND status <> 'pending'`, gone);
        events = await tx.execute(
          `DELETE FROM webhook_events WHERE id IN (${goneList}) AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_events.id)`,
          gone,
        );
      }
    }
    if (options.deliveredMs !== null) {
      const params: SqlValue[] = [options.nowMs - options.deliveredMs, options.batchSize];
      attempts += await tx.execute(
        `DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE event_id = '' AND attempted_at < $1 ORDER BY attempted_at LIMIT $2)`,
        params,
      );
    }
    return { events, attempts };
  });
}
