// The chain follower of one network when several processes share a PostgreSQL store: a leader
// lease (`store/postgres/leaderLease.ts`) elects one process, which runs the follower on a store
// fenced by its lease generation; the others stand by and take over within about a second of the
// holder's session ending (process killed, connection lost). On SQLite, one process owns the store
// and the follower simply runs.
import { hostname } from 'node:os';
import type { SqlDatabase } from '../store/sql.js';
import { createLeaderLease, fencedDatabase, type LeaseLogger } from '../store/postgres/leaderLease.js';
import type { ChainFollower } from '../notify/follow/index.js';

/** What the wiring needs of a follower, elected or not (a standby has no head or cursor). */
export type RunnableFollower = Pick<ChainFollower, 'network' | 'start' | 'stop' | 'wake' | 'head' | 'cursor'>;

export interface ElectedFollowerOptions {
  network: string;
  db: SqlDatabase;
  /** Builds a follower writing through `db` (the fenced store); called at every takeover. */
  createFollower(db: SqlDatabase): ChainFollower;
  /** PostgreSQL URL (the lease's own connection); absent on SQLite. */
  connectionString?: string;
  /** Schema of the service tables (tests). */
  schema?: string;
  logger: LeaseLogger;
  /** Standby's retry and holder's connection check interval. Default 1000. */
  intervalMs?: number;
}

export function createElectedFollower(options: ElectedFollowerOptions): RunnableFollower {
  const { network } = options;
  if (!options.connectionString) return options.createFollower(options.db);
  let follower: ChainFollower | undefined;
  const name = `follower:${network}`;
  const lease = createLeaderLease({
    connectionString: options.connectionString,
    schema: options.schema,
    name,
    holder: `${hostname()}:${process.pid}`,
    intervalMs: options.intervalMs,
    logger: options.logger,
    onAcquired(generation) {
      follower = options.createFollower(fencedDatabase(options.db, name, generation, () => lease.lost()));
      follower.start();
    },
    async onLost() {
      const stopping = follower;
      follower = undefined;
      await stopping?.stop();
    },
  });
  return {
    network,
    start: () => lease.start(),
    stop: () => lease.stop(),
    wake: () => follower?.wake(),
    head: () => follower?.head() ?? null,
    cursor: () => follower?.cursor() ?? null,
  };
}
