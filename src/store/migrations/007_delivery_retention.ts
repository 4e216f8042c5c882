// Index for retention (issue 18): the pruner finds finished deliveries (succeeded or failed) by
// the time of their last attempt, oldest first, without scanning the ones still pending.
import type { Migration } from './migrate.js';

export const deliveryRetentionMigration: Migration = {
  id: '007_delivery_retention',
  statements: ['CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (status, last_attempt_at)'],
};
