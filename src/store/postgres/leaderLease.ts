// One holder at a time for a named role across processes on one PostgreSQL database (the chain
// follower of a network): a session advisory lock on a dedicated connection elects the holder,
// and a generation in `cluster_leases`, raised at every takeover, fences its writes
// (`fencedDatabase`), so two processes that both believe they hold the role cannot both write.
// What the role does is the caller's (`onAcquired`/`onLost`).
import pg from 'pg';
import { ServiceError } from '../../rpc/errors.js';
import type { SqlDatabase, SqlExecutor } from '../sql.js';

/** A write of a lease holder whose generation is no longer current: another process took over. */
export class LeaseLostError extends ServiceError {
  override name = 'LeaseLostError';
  constructor(lease: string) {
    super(`the lease ${lease} was taken over by another process`, { retryable: false });
  }
}

export interface LeaseLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface LeaderLeaseOptions {
  connectionString: string;
  /** Schema of the service tables (tests); the lock is keyed by it too. */
  schema?: string;
  /** Role name, e.g. `follower:ETH_MAINNET`. */
  name: string;
  /** Who asks (host:pid), stored in `cluster_leases.holder` for people reading it. */
  holder: string;
  /** How often a standby tries to take the lock, and the holder checks its connection. Default 1000. */
  intervalMs?: number;
  /** A check of the connection that takes longer than this counts as a lost connection. Default 2000. */
  pingTimeoutMs?: number;
  logger: LeaseLogger;
  /** Called once the lock is held and the generation raised; the role starts here. */
  onAcquired(generation: bigint): Promise<void> | void;
  /** Called when the lock is (or may be) lost, or on stop; the role must stop writing before it resolves. */
  onLost(): Promise<void> | void;
}

export interface LeaderLease {
  start(): void;
  /** Stops the role (if held) and ends the session, which frees the lock. */
  stop(): Promise<void>;
  /** The generation held now, or null while standing by. */
  generation(): bigint | null;
  /** Gives the role up now (a fenced write failed); it is asked for again at the next interval. */
  lost(): void;
}

export function createLeaderLease(options: LeaderLeaseOptions): LeaderLease {
  const intervalMs = options.intervalMs ?? 1000;
  const lockKey = `tracehook:${options.schema ?? 'public'}:${options.name}`;
  const log = { lease: options.name };
  let client: pg.Client | undefined;
  let held: bigint | null = null;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let turn: Promise<void> = Promise.resolve();
  let announcedStandby = false;

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: options.connectionString, query_timeout: options.pingTimeoutMs ?? 2000, keepAlive: true });
    // A dropped connection surfaces here; the next check (within intervalMs) sees the client gone
    // and stops the role.
    const forget = () => {
      if (client === c) client = undefined;
    };
    c.on('error', () => {
      forget();
      c.end().catch(() => undefined);
    });
    c.on('end', forget);
    try {
      await c.connect();
      if (options.schema) await c.query(`SET search_path TO ${options.schema}`);
    } catch (error) {
      await c.end().catch(() => undefined);
      throw error;
    }
    return c;
  }

  /** Ends the session (freeing the lock) and stops the role if it was held. */
  async function release(): Promise<void> {
    const c = client;
    client = undefined;
    if (held !== null) {
      held = null;
      options.logger.warn(log, 'lease given up; role stopping');
      // Never rejects: the turns chained after this one must still run.
      await Promise.resolve()
        .then(options.onLost)
        .catch((error: unknown) => options.logger.warn({ ...log, err: error }, 'stopping the role failed'));
    }
    await c?.end().catch(() => undefined);
  }

  async function step(): Promise<void> {
    if (stopped) return;
    try {
      if (held !== null) {
        if (!client) throw new Error('connection lost');
        await client.query('SELECT 1');
        return;
      }
      client ??= await connect();
      const [row] = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [lockKey])).rows;
      if (!row?.ok) {
        if (!announcedStandby) options.logger.info(log, 'standing by: another process holds this role');
        announcedStandby = true;
        return;
      }
      const [lease] = (
        await client.query<{ generation: string }>(
          `INSERT INTO cluster_leases (name, generation, holder, acquired_at) VALUES ($1, 1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET generation = cluster_leases.generation + 1, holder = $2, acquired_at = $3
           RETURNING generation`,
          [options.name, options.holder, Date.now()],
        )
      ).rows;
      held = BigInt(lease!.generation);
      announcedStandby = false;
      options.logger.info({ ...log, generation: held.toString() }, 'lease acquired; role starting');
      await options.onAcquired(held);
    } catch (error) {
      if (held !== null || client) options.logger.warn({ ...log, err: error }, 'lease connection failed');
      await release();
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      turn = turn.then(step).finally(schedule);
    }, intervalMs);
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      turn = turn.then(step).finally(schedule);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await turn;
      await release();
    },
    generation: () => held,
    lost() {
      turn = turn.then(release);
    },
  };
}

/**
 * The store as a lease holder of `generation` sees it: every transaction first checks (and locks
 * until it ends) the lease row at that generation, and throws LeaseLostError when another process
 * has taken over since. A takeover waits for a fenced transaction in flight, so the new holder
 * reads everything the old one committed and the old one commits nothing after it.
 */
export function fencedDatabase(db: SqlDatabase, lease: string, generation: bigint, onLost: () => void): SqlDatabase {
  const check = async (tx: SqlExecutor) => {
    const n = await tx.execute('UPDATE cluster_leases SET holder = holder WHERE name = $1 AND generation = $2', [lease, generation]);
    if (n !== 1) {
      onLost();
      throw new LeaseLostError(lease);
    }
  };
  return {
    dialect: db.dialect,
    query: (sql, params) => db.query(sql, params),
    execute: (sql, params) => db.execute(sql, params),
    transaction: (fn) =>
      db.transaction(async (tx) => {
        await check(tx);
        return fn(tx);
      }),
    close: () => db.close(),
  };
}
