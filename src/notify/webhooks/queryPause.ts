// Pausing a Custom webhook whose query went over its budget: the webhook stops taking part in new
// blocks (is_active 0) and holds deliveries, with the reason on the record and a `paused` row in
// its delivery log. /api/resume-webhook (or update-webhook is_active true) clears all of it.
import type { SqlExecutor } from '../../store/sql.js';

export interface QueryPause {
  webhookId: string;
  /** The reason in words (block and limit), shown as `paused_detail` and in the delivery log. */
  detail: string;
  nowMs: number;
  /** How long the run took before it was stopped or refused. */
  latencyMs: number;
  /** Id of the delivery-log row (`wha_…`). */
  attemptId: string;
}

/** Writes the pause in the caller's transaction (the follower's, with the block's events). */
export async function pauseForQueryBudget(tx: SqlExecutor, pause: QueryPause): Promise<void> {
  await tx.execute(
    `UPDATE webhooks SET is_active = 0, paused_at = $2, paused_reason = 'query_budget', paused_detail = $3, updated_at = $2 WHERE id = $1`,
    [pause.webhookId, pause.nowMs, pause.detail],
  );
  // The delivery log lists attempts by event; a pause has none, so event_id is empty.
  await tx.execute(
    `INSERT INTO webhook_attempts (id, webhook_id, event_id, attempted_at, latency_ms, status_code, error, response_body, first_attempt, outcome)
     VALUES ($1, $2, '', $3, $4, NULL, $5, NULL, 0, 'paused')`,
    [pause.attemptId, pause.webhookId, pause.nowMs, pause.latencyMs, pause.detail],
  );
}
