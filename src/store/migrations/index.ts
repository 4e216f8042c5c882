// The ordered list of all migrations. Each feature adds its own file and one line here.
import type { Migration } from './migrate.js';
import { apiKeysMigration } from './001_api_keys.js';
import { webhooksMigration } from './002_webhooks.js';
import { followerMigration } from './003_follower.js';
import { apiKeysRevisionMigration } from './010_api_keys_revision.js';

export const migrations: readonly Migration[] = [
  apiKeysMigration,
  webhooksMigration,
  followerMigration,
  apiKeysRevisionMigration,
];
