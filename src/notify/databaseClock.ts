// The notify pipeline's clock when several processes share a PostgreSQL store: the database
// server's clock, read every few seconds and advanced in between by this process's monotonic clock.
// Leases, retries and deadlines written by one process are then compared by the others against the
// same clock, so no host's own clock (or a step of it) can make a process steal a lease or retry
// early. A step of the database server's clock is followed as it comes (logged); README, "Reliability".
import type { SqlDatabase } from '../store/sql.js';
import { toNumber } from '../store/sql.js';
import type { Clock } from './clock.js';
import { silentLogger, type NotifyLogger } from './notifyLogger.js';

export interface DatabaseClock extends Clock {
  /** Stops the periodic reads. */
  close(): void;
}

export interface DatabaseClockOptions {
  /** How often the server's clock is read again. Default 5 000. */
  syncIntervalMs?: number;
  /** Default performance.now. */
  monotonicNow?: () => number;
  logger?: NotifyLogger;
}

/** Corrections below this are drift between two oscillators, kept silently. */
const DRIFT_MS = 20;
/** Corrections above this are a step of the server's clock, logged. */
const STEP_MS = 1_000;

/** Reads the server's clock once (failing the start when the store is unreachable), then keeps following it. */
export async function createDatabaseClock(db: SqlDatabase, options: DatabaseClockOptions = {}): Promise<DatabaseClock> {
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const logger = options.logger ?? silentLogger;
  const sql = db.dialect === 'postgres' ? 'SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint AS t' : "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS t";

  /** The server's time minus the monotonic clock, measured at the middle of the round trip. */
  async function measureOffset(): Promise<number> {
    const before = monotonicNow();
    const rows = await db.query<{ t: unknown }>(sql);
    const after = monotonicNow();
    return toNumber(rows[0]!.t) - (before + after) / 2;
  }

  let offsetMs = await measureOffset();
  let closed = false;
  const timer = setInterval(() => {
    measureOffset().then(
      (measured) => {
        const correction = measured - offsetMs;
        if (closed || Math.abs(correction) <= DRIFT_MS) return;
        if (Math.abs(correction) > STEP_MS) logger.warn({ stepMs: Math.round(correction) }, "the database server's clock stepped; following it");
        offsetMs = measured;
      },
      // Unreachable for now: keep counting on the monotonic clock.
      () => undefined,
    );
  }, options.syncIntervalMs ?? 5_000);
  timer.unref();
  return {
    now: () => Math.floor(monotonicNow() + offsetMs),
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
