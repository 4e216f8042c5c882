// The ordered list of all migrations. Each feature adds its own file and one line here.
import type { Migration } from './migrate.js';
import { apiKeysMigration } from './001_api_keys.js';
import { webhooksMigration } from './002_webhooks.js';
import { followerMigration } from './003_follower.js';
import { webhookPauseDetailMigration } from './004_webhook_pause_detail.js';
import { apiKeysRevisionMigration } from './005_api_keys_revision.js';
import { webhookAttemptHeadersMigration } from './006_webhook_attempt_headers.js';
import { deliveryRetentionMigration } from './007_delivery_retention.js';
// Scale-out (issue 17) numbers its migrations from 010, apart from the features' sequence.
import { clusterLeasesMigration } from './010_cluster_leases.js';

export const migrations: readonly Migration[] = [
  apiKeysMigration,
  webhooksMigration,
  followerMigration,
  webhookPauseDetailMigration,
  apiKeysRevisionMigration,
  webhookAttemptHeadersMigration,
  deliveryRetentionMigration,
  clusterLeasesMigration,
];
