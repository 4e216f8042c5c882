// Schema of webhooks, their filters, the transactional outbox (events + deliveries) and the
// delivery attempt log. The notify pipeline (src/notify) owns the queries on these tables.
import type { Migration } from './migrate.js';

export const webhooksMigration: Migration = {
  id: '002_webhooks',
  statements: [
    // `is_active` is the user's switch (no new events while 0); `paused_at` holds deliveries while
    // events keep being recorded (manual pause or auto-pause after continuous failure).
    // `last_event_seq` numbers events per webhook; `first_done_seq` is the highest seq whose first
    // attempt is done, so the next first-time delivery is always seq `first_done_seq + 1`.
    `CREATE TABLE webhooks (
      id TEXT PRIMARY KEY,
      network TEXT NOT NULL,
      type TEXT NOT NULL,
      url TEXT NOT NULL,
      name TEXT,
      app_id TEXT,
      is_active INTEGER NOT NULL,
      paused_at BIGINT,
      paused_reason TEXT,
      signing_key TEXT NOT NULL,
      previous_signing_key TEXT,
      previous_key_expires_at BIGINT,
      graphql_query TEXT,
      skip_empty_messages INTEGER NOT NULL,
      failing_since BIGINT,
      last_event_seq BIGINT NOT NULL,
      first_done_seq BIGINT NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    'CREATE INDEX webhooks_network ON webhooks (network, is_active)',
    `CREATE TABLE webhook_addresses (
      webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      address TEXT NOT NULL,
      PRIMARY KEY (webhook_id, address)
    )`,
    'CREATE INDEX webhook_addresses_address ON webhook_addresses (address)',
    // token_id is a decimal string; '' means every token of the contract.
    `CREATE TABLE webhook_nft_filters (
      webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      contract_address TEXT NOT NULL,
      token_id TEXT NOT NULL,
      PRIMARY KEY (webhook_id, contract_address, token_id)
    )`,
    'CREATE INDEX webhook_nft_filters_contract ON webhook_nft_filters (contract_address)',
    // body: the exact notification bytes (UTF-8 JSON) that are signed and sent on every attempt.
    `CREATE TABLE webhook_events (
      id TEXT PRIMARY KEY,
      webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      seq BIGINT NOT NULL,
      type TEXT NOT NULL,
      body TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    'CREATE UNIQUE INDEX webhook_events_seq ON webhook_events (webhook_id, seq)',
    // One row per event: status pending | succeeded | failed. A row is in flight while
    // lease_expires_at is in the future; a crashed worker's rows come back when it passes.
    `CREATE TABLE webhook_deliveries (
      event_id TEXT PRIMARY KEY REFERENCES webhook_events(id) ON DELETE CASCADE,
      webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      seq BIGINT NOT NULL,
      event_created_at BIGINT NOT NULL,
      status TEXT NOT NULL,
      first_attempted INTEGER NOT NULL,
      attempts INTEGER NOT NULL,
      next_attempt_at BIGINT NOT NULL,
      retry_deadline_at BIGINT,
      lease_owner TEXT,
      lease_expires_at BIGINT,
      last_attempt_at BIGINT,
      last_status_code INTEGER,
      last_error TEXT,
      delivered_at BIGINT
    )`,
    'CREATE UNIQUE INDEX webhook_deliveries_seq ON webhook_deliveries (webhook_id, seq)',
    'CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, first_attempted, next_attempt_at)',
    'CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (webhook_id, status, event_created_at)',
    `CREATE TABLE webhook_attempts (
      id TEXT PRIMARY KEY,
      webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      event_id TEXT NOT NULL,
      attempted_at BIGINT NOT NULL,
      latency_ms BIGINT NOT NULL,
      status_code INTEGER,
      error TEXT,
      response_body TEXT,
      first_attempt INTEGER NOT NULL,
      outcome TEXT NOT NULL
    )`,
    'CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, attempted_at, id)',
    'CREATE INDEX webhook_attempts_by_event ON webhook_attempts (event_id, attempted_at)',
  ],
};
