// Moves every stored time the delivery schedule compares with "now" by one step of the system
// clock, so that after the step each retry, retry deadline, lease, auto-pause window and signing-key
// grace period is as far away as it was before it. Runs in the caller's transaction.
import type { SqlExecutor } from '../../store/sql.js';

/** Shifts the pending schedule by `stepMs`; returns the deliveries moved. */
export async function shiftScheduledTimes(tx: SqlExecutor, stepMs: number): Promise<number> {
  const moved = await tx.execute(
    `UPDATE webhook_deliveries SET next_attempt_at = next_attempt_at + $1,
       retry_deadline_at = CASE WHEN retry_deadline_at IS NULL THEN NULL ELSE retry_deadline_at + $1 END,
       lease_expires_at = CASE WHEN lease_expires_at IS NULL THEN NULL ELSE lease_expires_at + $1 END
     WHERE status = 'pending'`,
    [stepMs],
  );
  await tx.execute('UPDATE webhooks SET failing_since = failing_since + $1 WHERE failing_since IS NOT NULL', [stepMs]);
  await tx.execute('UPDATE webhooks SET previous_key_expires_at = previous_key_expires_at + $1 WHERE previous_key_expires_at IS NOT NULL', [stepMs]);
  return moved;
}
