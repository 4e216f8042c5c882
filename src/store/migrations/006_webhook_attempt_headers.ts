// The request headers of each delivery attempt, as sent (JSON object of name → value), so the
// delivery log shows exactly what the listener received. They hold the signatures of the body,
// never a signing key. NULL for attempts recorded before this migration and for pause lines.
import type { Migration } from './migrate.js';

export const webhookAttemptHeadersMigration: Migration = {
  id: '006_webhook_attempt_headers',
  statements: ['ALTER TABLE webhook_attempts ADD COLUMN request_headers TEXT'],
};
