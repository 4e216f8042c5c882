// Schema of API keys (hashed, never plain) and their daily usage per method.
import type { Migration } from './migrate.js';

export const apiKeysMigration: Migration = {
  id: '001_api_keys',
  statements: [
    `CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      key_hash TEXT NOT NULL UNIQUE,
      key_prefix TEXT NOT NULL,
      name TEXT NOT NULL,
      tier TEXT NOT NULL,
      active INTEGER NOT NULL,
      allowed_origins TEXT,
      created_at BIGINT NOT NULL,
      last_used_at BIGINT,
      revoked_at BIGINT
    )`,
    `CREATE TABLE api_key_usage (
      key_id TEXT NOT NULL REFERENCES api_keys(id),
      day TEXT NOT NULL,
      method TEXT NOT NULL,
      requests BIGINT NOT NULL,
      compute_units BIGINT NOT NULL,
      PRIMARY KEY (key_id, day, method)
    )`,
  ],
};
