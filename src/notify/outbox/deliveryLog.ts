// Read and replay side of the outbox for the management API: the per-webhook attempt log, events
// with their delivery state, and replay of one event or of every failed event since a time.
import type { SqlExecutor, SqlRow, SqlValue } from '../../store/sql.js';
import { toNumber } from '../../store/sql.js';
import type { DeliveryStatus } from './recordAttempt.js';

export interface AttemptRecord {
  id: string;
  eventId: string;
  attemptedAt: number;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  /** The request headers as sent, in sending order; null for attempts logged without them. */
  requestHeaders: Record<string, string> | null;
  firstAttempt: boolean;
  outcome: string;
}

export interface EventRecord {
  id: string;
  seq: number;
  type: string;
  createdAt: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  /** The exact notification body; only filled by getEvent. */
  body?: string;
}

export interface LogPage<T> {
  items: T[];
  after: string | null;
}

const nn = (v: unknown): number | null => (v === null || v === undefined ? null : toNumber(v));

/** Attempts of one webhook (optionally one event), newest first; cursor `attemptedAt:id`. */
export async function listAttempts(
  ex: SqlExecutor,
  webhookId: string,
  page: { limit: number; after?: string | null; eventId?: string | null },
): Promise<LogPage<AttemptRecord>> {
  const params: SqlValue[] = [webhookId];
  const where = ['webhook_id = $1'];
  if (page.eventId) {
    params.push(page.eventId);
    where.push(`event_id = $${params.length}`);
  }
  const cursor = page.after ? /^(\d+):(.+)$/.exec(page.after) : null;
  if (cursor) {
    params.push(Number(cursor[1]), cursor[2]!);
    where.push(`(attempted_at < $${params.length - 1} OR (attempted_at = $${params.length - 1} AND id < $${params.length}))`);
  }
  params.push(page.limit + 1);
  const rows = await ex.query<SqlRow>(
    `SELECT id, event_id, attempted_at, latency_ms, status_code, error, response_body, request_headers, first_attempt, outcome
     FROM webhook_attempts WHERE ${where.join(' AND ')} ORDER BY attempted_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  const items = rows.slice(0, page.limit).map((r) => ({
    id: r.id as string,
    eventId: r.event_id as string,
    attemptedAt: toNumber(r.attempted_at),
    latencyMs: toNumber(r.latency_ms),
    statusCode: nn(r.status_code),
    error: (r.error as string | null) ?? null,
    responseBody: (r.response_body as string | null) ?? null,
    requestHeaders: typeof r.request_headers === 'string' ? (JSON.parse(r.request_headers) as Record<string, string>) : null,
    firstAttempt: toNumber(r.first_attempt) === 1,
    outcome: r.outcome as string,
  }));
  const last = items[items.length - 1];
  return { items, after: rows.length > page.limit && last ? `${last.attemptedAt}:${last.id}` : null };
}

const EVENT_COLUMNS = `e.id, e.seq, e.type, e.created_at, d.status, d.attempts, d.next_attempt_at, d.last_attempt_at,
  d.last_status_code, d.last_error, d.delivered_at`;

function rowToEvent(r: SqlRow): EventRecord {
  const status = r.status as DeliveryStatus;
  return {
    id: r.id as string,
    seq: toNumber(r.seq),
    type: r.type as string,
    createdAt: toNumber(r.created_at),
    status,
    attempts: toNumber(r.attempts),
    nextAttemptAt: status === 'pending' ? nn(r.next_attempt_at) : null,
    lastAttemptAt: nn(r.last_attempt_at),
    lastStatusCode: nn(r.last_status_code),
    lastError: (r.last_error as string | null) ?? null,
    deliveredAt: nn(r.delivered_at),
  };
}

/** Events of one webhook with their delivery state, newest first; cursor is the seq. */
export async function listEvents(
  ex: SqlExecutor,
  webhookId: string,
  page: { limit: number; after?: string | null; status?: DeliveryStatus | null },
): Promise<LogPage<EventRecord>> {
  const params: SqlValue[] = [webhookId];
  const where = ['e.webhook_id = $1'];
  if (page.status) {
    params.push(page.status);
    where.push(`d.status = $${params.length}`);
  }
  if (page.after && /^\d+$/.test(page.after)) {
    params.push(Number(page.after));
    where.push(`e.seq < $${params.length}`);
  }
  params.push(page.limit + 1);
  const rows = await ex.query(
    `SELECT ${EVENT_COLUMNS} FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
     WHERE ${where.join(' AND ')} ORDER BY e.seq DESC LIMIT $${params.length}`,
    params,
  );
  const items = rows.slice(0, page.limit).map(rowToEvent);
  const last = items[items.length - 1];
  return { items, after: rows.length > page.limit && last ? String(last.seq) : null };
}

/** One event with its stored body, or null. */
export async function getEvent(ex: SqlExecutor, webhookId: string, eventId: string): Promise<EventRecord | null> {
  const rows = await ex.query(
    `SELECT ${EVENT_COLUMNS}, e.body FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id
     WHERE e.webhook_id = $1 AND e.id = $2`,
    [webhookId, eventId],
  );
  return rows[0] ? { ...rowToEvent(rows[0]), body: rows[0].body as string } : null;
}

/**
 * Sends a delivered or failed event again (same id, same bytes) as a retry: it does not wait for
 * first-time ordering and gets a fresh retry window. A still-pending event is left as it is.
 */
export async function replayEvent(
  ex: SqlExecutor,
  webhookId: string,
  eventId: string,
  nowMs: number,
  retryWindowMs: number,
): Promise<'replayed' | 'pending' | 'not_found'> {
  const n = await ex.execute(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $3, retry_deadline_at = $4, lease_owner = NULL, lease_expires_at = NULL
     WHERE webhook_id = $1 AND event_id = $2 AND status <> 'pending'`,
    [webhookId, eventId, nowMs, nowMs + retryWindowMs],
  );
  if (n === 1) return 'replayed';
  const rows = await ex.query('SELECT event_id FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2', [webhookId, eventId]);
  return rows.length ? 'pending' : 'not_found';
}

/** Replays every failed event of the webhook recorded at or after `sinceMs`; returns how many. */
export async function replayFailedSince(ex: SqlExecutor, webhookId: string, sinceMs: number, nowMs: number, retryWindowMs: number): Promise<number> {
  return ex.execute(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $3, retry_deadline_at = $4, lease_owner = NULL, lease_expires_at = NULL
     WHERE webhook_id = $1 AND status = 'failed' AND event_created_at >= $2`,
    [webhookId, sinceMs, nowMs, nowMs + retryWindowMs],
  );
}
