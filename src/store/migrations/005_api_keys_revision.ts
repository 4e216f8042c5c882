// A revision counter of the API keys, bumped by every change that can affect authentication
// (create, revoke, update), so a running gateway sees a change made by the CLI at once.
import type { Migration } from './migrate.js';

export const apiKeysRevisionMigration: Migration = {
  id: '005_api_keys_revision',
  statements: [
    'CREATE TABLE api_keys_revision (id INTEGER PRIMARY KEY, revision BIGINT NOT NULL)',
    'INSERT INTO api_keys_revision (id, revision) VALUES (1, 0)',
  ],
};
