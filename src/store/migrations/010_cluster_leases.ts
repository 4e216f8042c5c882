// Leases of the single-holder roles of a multi-process setup (the chain follower of each network):
// who holds one, and a generation raised at every takeover. Every write the holder makes checks
// the generation in its own transaction (`store/postgres/leaderLease.ts`), so a process that lost
// its lease without noticing can write nothing more. Numbered apart (010+) from feature migrations.
import type { Migration } from './migrate.js';

export const clusterLeasesMigration: Migration = {
  id: '010_cluster_leases',
  statements: [
    `CREATE TABLE cluster_leases (
      name TEXT PRIMARY KEY,
      generation BIGINT NOT NULL,
      holder TEXT NOT NULL,
      acquired_at BIGINT NOT NULL
    )`,
  ],
};
