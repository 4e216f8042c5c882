// The outbox's write side: turns extracted events into stored notifications plus pending delivery
// rows, inside the caller's transaction (the same one that stores the follower's chain cursor), so
// an event exists exactly when the cursor that produced it was committed.
import type { SqlExecutor, SqlValue } from '../../store/sql.js';
import { toNumber } from '../../store/sql.js';
import type { WebhookType } from '../webhooks/webhookTypes.js';
import { createWebhookIds, type WebhookIds } from '../webhooks/webhookIds.js';
import { serializeNotification } from './notificationBody.js';

/** One event for one webhook, as an extractor produces it. `event` must be plain JSON (hex, not bigint). */
export interface OutboxEvent {
  webhookId: string;
  type: WebhookType;
  event: unknown;
}

export interface AppendedEvent {
  id: string;
  webhookId: string;
  /** Position among this webhook's events (1, 2, …); first attempts go out in this order. */
  seq: number;
  createdAt: number;
}

export interface AppendEventsOptions {
  /** Event time (ms) written into `createdAt` of every event of this call. */
  nowMs: number;
  ids?: WebhookIds;
}

const CHUNK_ROWS = 200;
const defaultIds = createWebhookIds();

/**
 * Appends events in the caller's transaction. Per webhook, events keep the order of `events`;
 * the returned list is grouped by webhook.
 * Events of unknown or inactive (`is_active = 0`) webhooks are skipped, not errors, so a webhook
 * deleted or switched off while a block is being processed does not block the follower.
 *
 * Seq numbers come from a counter on the webhook row; incrementing it locks that row until commit
 * (PostgreSQL), so concurrent appenders to one webhook commit in seq order and no lower seq can
 * appear after a higher one has been delivered.
 */
export async function appendEvents(tx: SqlExecutor, events: readonly OutboxEvent[], options: AppendEventsOptions): Promise<AppendedEvent[]> {
  const ids = options.ids ?? defaultIds;
  const createdAt = new Date(options.nowMs).toISOString();
  const byWebhook = new Map<string, OutboxEvent[]>();
  for (const e of events) {
    const list = byWebhook.get(e.webhookId);
    if (list) list.push(e);
    else byWebhook.set(e.webhookId, [e]);
  }
  const appended: AppendedEvent[] = [];
  // Webhook rows are locked in id order, like every multi-webhook transaction (no deadlocks).
  for (const webhookId of [...byWebhook.keys()].sort()) {
    const list = byWebhook.get(webhookId)!;
    // Serialise first: a non-JSON event throws before anything of this webhook is written.
    const rows = list.map((e) => {
      const id = ids.eventId();
      return { id, type: e.type, body: serializeNotification({ webhookId, id, createdAt, type: e.type, event: e.event }) };
    });
    const n = await tx.execute('UPDATE webhooks SET last_event_seq = last_event_seq + $2 WHERE id = $1 AND is_active = 1', [webhookId, rows.length]);
    if (n === 0) continue;
    const last = toNumber((await tx.query<{ s: unknown }>('SELECT last_event_seq AS s FROM webhooks WHERE id = $1', [webhookId]))[0]!.s);
    const first = last - rows.length + 1;
    for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
      const chunk = rows.slice(i, i + CHUNK_ROWS);
      const eventParams: SqlValue[] = [];
      const deliveryParams: SqlValue[] = [];
      const eventTuples: string[] = [];
      const deliveryTuples: string[] = [];
      chunk.forEach((r, j) => {
        const seq = first + i + j;
        let b = eventParams.length;
        eventParams.push(r.id, webhookId, seq, r.type, r.body, options.nowMs);
        eventTuples.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`);
        b = deliveryParams.length;
        deliveryParams.push(r.id, webhookId, seq, options.nowMs);
        deliveryTuples.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, 'pending', 0, 0, $${b + 4})`);
        appended.push({ id: r.id, webhookId, seq, createdAt: options.nowMs });
      });
      await tx.execute(`INSERT INTO webhook_events (id, webhook_id, seq, type, body, created_at) VALUES ${eventTuples.join(', ')}`, eventParams);
      await tx.execute(
        `INSERT INTO webhook_deliveries (event_id, webhook_id, seq, event_created_at, status, first_attempted, attempts, next_attempt_at)
         VALUES ${deliveryTuples.join(', ')}`,
        deliveryParams,
      );
    }
  }
  return appended;
}
