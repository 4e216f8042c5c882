// Schema of the chain follower (src/notify/follow): per-network cursor, the recent canonical blocks
// it processed (reorg detection), what each webhook was sent per block (reorg retraction), per-
// webhook follower state (Custom webhook sequence numbers, backfill range) and token metadata.
import type { Migration } from './migrate.js';

export const followerMigration: Migration = {
  id: '003_follower',
  statements: [
    // The last block whose events are committed; written in the same transaction as those events.
    `CREATE TABLE follower_cursors (
      network TEXT PRIMARY KEY,
      block_number BIGINT NOT NULL,
      block_hash TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    // Processed canonical blocks, kept for the reorg retention window.
    `CREATE TABLE follower_blocks (
      network TEXT NOT NULL,
      block_number BIGINT NOT NULL,
      block_hash TEXT NOT NULL,
      PRIMARY KEY (network, block_number)
    )`,
    // The event body each webhook was sent for a block (JSON), replayed with removed: true when the
    // block leaves the canonical chain. Kept for the reorg retention window.
    `CREATE TABLE follower_deliveries (
      network TEXT NOT NULL,
      block_number BIGINT NOT NULL,
      block_hash TEXT NOT NULL,
      webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      event TEXT NOT NULL,
      PRIMARY KEY (network, block_hash, webhook_id)
    )`,
    'CREATE INDEX follower_deliveries_number ON follower_deliveries (network, block_number)',
    // graphql_sequence: last sequenceNumber sent. backfill_next..backfill_end: history still to run
    // (inclusive, null when none); while set, live blocks extend backfill_end instead of notifying,
    // so the webhook receives history then live blocks strictly in order. replay_from: a request
    // from the API, picked up by the follower at its next block.
    `CREATE TABLE follower_webhooks (
      webhook_id TEXT PRIMARY KEY REFERENCES webhooks(id) ON DELETE CASCADE,
      network TEXT NOT NULL,
      graphql_sequence BIGINT NOT NULL,
      backfill_next BIGINT,
      backfill_end BIGINT,
      replay_from BIGINT,
      updated_at BIGINT NOT NULL
    )`,
    'CREATE INDEX follower_webhooks_network ON follower_webhooks (network, backfill_next)',
    // symbol()/decimals() answers, read once per contract; decimals -1 means none.
    `CREATE TABLE follower_tokens (
      network TEXT NOT NULL,
      address TEXT NOT NULL,
      symbol TEXT,
      decimals INTEGER NOT NULL,
      PRIMARY KEY (network, address)
    )`,
  ],
};
