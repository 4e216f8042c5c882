// Why a webhook was paused, in words: set when the follower pauses a Custom webhook whose query
// went over its budget on a block (paused_reason 'query_budget'); cleared on resume.
import type { Migration } from './migrate.js';

export const webhookPauseDetailMigration: Migration = {
  id: '004_webhook_pause_detail',
  statements: ['ALTER TABLE webhooks ADD COLUMN paused_detail TEXT'],
};
