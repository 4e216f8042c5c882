// Recognises a notification body: `{webhookId, id, createdAt, type, event}`.

/** What every webhook POST carries. Deduplicate by `id`: retries and replays reuse it. */
export interface Notification<E = unknown> {
  webhookId: string;
  id: string;
  /** RFC 3339. */
  createdAt: string;
  type: string;
  event: E;
}

export function isNotification(value: unknown): value is Notification {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.webhookId === 'string' &&
    typeof v.id === 'string' &&
    typeof v.createdAt === 'string' &&
    !Number.isNaN(Date.parse(v.createdAt)) &&
    typeof v.type === 'string' &&
    typeof v.event === 'object' &&
    v.event !== null
  );
}

/** The notification in `rawBody`, or null when it is not JSON or not a notification. */
export function parseNotification(rawBody: string | Uint8Array): Notification | null {
  try {
    const value: unknown = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
    return isNotification(value) ? value : null;
  } catch {
    return null;
  }
}
