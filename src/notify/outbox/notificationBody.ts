// The notification envelope every listener receives, serialised exactly once. The resulting string
// is stored and its UTF-8 bytes are what is signed and sent on every attempt, so a retry or replay
// is byte-for-byte the same request body.

/** The body of every webhook POST (the hosted provider's v2 envelope). */
export interface Notification<E = unknown> {
  webhookId: string;
  /** Event id (`whevt_…`): stable across retries and replays; use it to drop duplicates. */
  id: string;
  /** RFC 3339 time the event was recorded. */
  createdAt: string;
  type: string;
  event: E;
}

/** Serialises with a fixed key order. Throws TypeError when `event` is not JSON (e.g. holds a bigint). */
export function serializeNotification(n: Notification): string {
  const text = JSON.stringify({ webhookId: n.webhookId, id: n.id, createdAt: n.createdAt, type: n.type, event: n.event });
  if (n.event === undefined || !text.includes('"event":')) throw new TypeError('notification event must be a JSON value');
  return text;
}
