// Leasing of due deliveries. A claimed row carries a lease (owner + expiry); a crashed worker's
// rows come back when the lease expires. Two workers never hold the same row: the claim runs in a
// transaction (SQLite's single writer; PostgreSQL `FOR UPDATE … SKIP LOCKED`) and each row's UPDATE
// re-checks that its lease is still free.
//
// Ordering: per webhook, the only first-time delivery that may be claimed is seq first_done_seq + 1
// (the oldest never-attempted one). It stays "first-time" while in flight, so the next one cannot
// be claimed before its attempt is recorded. Retries (first_attempted = 1) are claimed independently.
import type { SqlDatabase, SqlExecutor, SqlRow } from '../../store/sql.js';
import { toNumber } from '../../store/sql.js';
import { signingKeysAt } from '../webhooks/webhookTypes.js';

/** Everything one attempt needs, read at claim time. */
export interface DeliveryJob {
  eventId: string;
  webhookId: string;
  seq: number;
  /** The stored notification; its UTF-8 bytes are the request body. */
  body: string;
  /** False for the first-time delivery (the ordered one). */
  firstAttempted: boolean;
  attempts: number;
  retryDeadlineAt: number | null;
  eventCreatedAt: number;
  url: string;
  /** Keys to sign with at claim time: current first, previous during its grace period. Secret. */
  signingKeys: string[];
  workerId: string;
  leaseExpiresAt: number;
}

export interface ClaimOptions {
  workerId: string;
  nowMs: number;
  leaseMs: number;
  limit: number;
}

interface JobRow extends SqlRow {
  event_id: string;
  webhook_id: string;
  seq: unknown;
  first_attempted: unknown;
  attempts: unknown;
  retry_deadline_at: unknown;
  event_created_at: unknown;
  body: string;
  url: string;
  signing_key: string;
  previous_signing_key: string | null;
  previous_key_expires_at: unknown;
}

const JOB_COLUMNS = `d.event_id, d.webhook_id, d.seq, d.first_attempted, d.attempts, d.retry_deadline_at, d.event_created_at,
  e.body, w.url, w.signing_key, w.previous_signing_key, w.previous_key_expires_at`;

const LEASE_FREE = '(d.lease_expires_at IS NULL OR d.lease_expires_at <= $1)';
const DELIVERING = 'w.is_active = 1 AND w.paused_at IS NULL';

function selectHeads(lock: string): string {
  return `SELECT ${JOB_COLUMNS} FROM webhooks w
    JOIN webhook_deliveries d ON d.webhook_id = w.id AND d.seq = w.first_done_seq + 1
    JOIN webhook_events e ON e.id = d.event_id
    WHERE ${DELIVERING} AND w.last_event_seq > w.first_done_seq
      AND d.status = 'pending' AND d.first_attempted = 0 AND d.next_attempt_at <= $1 AND ${LEASE_FREE}
    ORDER BY d.event_created_at, d.webhook_id LIMIT $2 ${lock}`;
}

function selectRetries(lock: string): string {
  return `SELECT ${JOB_COLUMNS} FROM webhook_deliveries d
    JOIN webhooks w ON w.id = d.webhook_id
    JOIN webhook_events e ON e.id = d.event_id
    WHERE d.status = 'pending' AND d.first_attempted = 1 AND d.next_attempt_at <= $1 AND ${LEASE_FREE} AND ${DELIVERING}
    ORDER BY d.next_attempt_at, d.event_id LIMIT $2 ${lock}`;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : toNumber(v));

async function takeLeases(tx: SqlExecutor, rows: JobRow[], options: ClaimOptions): Promise<DeliveryJob[]> {
  const leaseExpiresAt = options.nowMs + options.leaseMs;
  const jobs: DeliveryJob[] = [];
  for (const r of rows) {
    const n = await tx.execute(
      `UPDATE webhook_deliveries SET lease_owner = $2, lease_expires_at = $3
       WHERE event_id = $1 AND status = 'pending' AND (lease_expires_at IS NULL OR lease_expires_at <= $4)`,
      [r.event_id, options.workerId, leaseExpiresAt, options.nowMs],
    );
    if (n !== 1) continue;
    const keys = signingKeysAt(
      { signingKey: r.signing_key, previousSigningKey: r.previous_signing_key, previousKeyExpiresAt: nullableNumber(r.previous_key_expires_at) },
      options.nowMs,
    );
    jobs.push({
      eventId: r.event_id,
      webhookId: r.webhook_id,
      seq: toNumber(r.seq),
      body: r.body,
      firstAttempted: toNumber(r.first_attempted) === 1,
      attempts: toNumber(r.attempts),
      retryDeadlineAt: nullableNumber(r.retry_deadline_at),
      eventCreatedAt: toNumber(r.event_created_at),
      url: r.url,
      signingKeys: keys,
      workerId: options.workerId,
      leaseExpiresAt,
    });
  }
  return jobs;
}

/**
 * Leases up to `limit` due deliveries: first-time heads first (oldest event first), then due
 * retries. Returns only rows this worker now holds.
 */
export async function claimDeliveries(db: SqlDatabase, options: ClaimOptions): Promise<DeliveryJob[]> {
  if (options.limit <= 0) return [];
  const lock = db.dialect === 'postgres' ? 'FOR UPDATE OF d SKIP LOCKED' : '';
  return db.transaction(async (tx) => {
    const heads = await tx.query<JobRow>(selectHeads(lock), [options.nowMs, options.limit]);
    const jobs = await takeLeases(tx, heads, options);
    const room = options.limit - jobs.length;
    if (room > 0) {
      const retries = await tx.query<JobRow>(selectRetries(lock), [options.nowMs, room]);
      jobs.push(...(await takeLeases(tx, retries, options)));
    }
    return jobs;
  });
}

/**
 * Leases the next first-time delivery of one webhook, if it is due and the webhook is delivering;
 * runs inside the caller's transaction (the one recording the previous attempt), so a worker can
 * continue a webhook's ordered stream without a separate claim round trip.
 */
export async function claimNextHead(tx: SqlExecutor, dialect: SqlDatabase['dialect'], webhookId: string, options: ClaimOptions): Promise<DeliveryJob | null> {
  const lock = dialect === 'postgres' ? 'FOR UPDATE OF d SKIP LOCKED' : '';
  const rows = await tx.query<JobRow>(
    `SELECT ${JOB_COLUMNS} FROM webhooks w
      JOIN webhook_deliveries d ON d.webhook_id = w.id AND d.seq = w.first_done_seq + 1
      JOIN webhook_events e ON e.id = d.event_id
      WHERE w.id = $2 AND ${DELIVERING} AND w.last_event_seq > w.first_done_seq
        AND d.status = 'pending' AND d.first_attempted = 0 AND d.next_attempt_at <= $1 AND ${LEASE_FREE} ${lock}`,
    [options.nowMs, webhookId],
  );
  const [job] = await takeLeases(tx, rows, options);
  return job ?? null;
}

/** Gives back this worker's leases (all, or only `eventIds`) so another worker can take them at once. */
export async function releaseLeases(db: SqlExecutor, workerId: string, eventIds?: readonly string[]): Promise<number> {
  if (!eventIds) return db.execute('UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1', [workerId]);
  let n = 0;
  for (const id of eventIds) {
    n += await db.execute('UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1 AND event_id = $2', [workerId, id]);
  }
  return n;
}

/**
 * Moves the expiry of every lease this worker holds to `leaseExpiresAt` (a heartbeat): leases can
 * then be short (a killed worker's rows return within one lease) while an attempt runs longer.
 * A lease that already expired and was taken by another worker is not this worker's any more.
 */
export async function renewLeases(db: SqlExecutor, workerId: string, leaseExpiresAt: number): Promise<number> {
  return db.execute("UPDATE webhook_deliveries SET lease_expires_at = $2 WHERE lease_owner = $1 AND status = 'pending'", [workerId, leaseExpiresAt]);
}

/**
 * Gives back every lease, whoever holds it. Only for a store that exactly one process uses (the
 * SQLite default): at start-up, leases of the previous, killed process are known to be dead, so
 * its in-flight deliveries resume at once instead of after the lease expiry.
 */
export async function releaseAllLeases(db: SqlExecutor): Promise<number> {
  return db.execute('UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner IS NOT NULL');
}

/**
 * Earliest time (ms) after `nowMs` at which a retry of a delivering webhook becomes due, or a
 * lease expires; null when nothing is scheduled. Lets the worker sleep exactly until then.
 */
export async function nextWakeAt(db: SqlExecutor, nowMs: number): Promise<number | null> {
  const rows = await db.query<{ t: unknown }>(
    `SELECT MIN(t) AS t FROM (
       SELECT MIN(d.next_attempt_at) AS t FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at > $1 AND ${DELIVERING}
       UNION ALL
       SELECT MIN(d.lease_expires_at) AS t FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.lease_expires_at > $1
     ) x`,
    [nowMs],
  );
  return nullableNumber(rows[0]?.t);
}
