// The reference listener's decision, shared by every framework adapter: missing signature 400,
// wrong signature 401, not a notification 400, handler failure 500 (so the sender retries),
// otherwise the handler runs and the answer is 200.
import { verifySignature, verifyStandardWebhook } from './verifySignature.js';
import { parseNotification, type Notification } from './parseNotification.js';

export const SIGNATURE_HEADER = 'x-service-signature';
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface NotificationContext {
  /** The exact bytes received. */
  rawBody: Buffer;
  /** Request headers, lowercase names. */
  headers: Record<string, string | undefined>;
}

export interface ListenerOptions<E = unknown> {
  /** The webhook's signing key; during a key rotation pass both (new and old). */
  signingKey: string | readonly string[];
  /** Runs for each verified notification. Throwing answers 500, so the event is retried. */
  onNotification(notification: Notification<E>, context: NotificationContext): void | Promise<void>;
  /** Largest body accepted (413 above). Default 10 MiB. */
  maxBodyBytes?: number;
  /** Signature header to read. Default `x-service-signature`. */
  signatureHeader?: string;
  /**
   * Also require valid Standard Webhooks headers with a timestamp at most this many seconds old
   * (replay protection). Off by default.
   */
  toleranceSec?: number;
  /** Called with what `onNotification` threw (the answer is 500 either way). */
  onError?(error: unknown): void;
}

export interface ListenerReply {
  status: number;
  body: string;
}

const reply = (status: number, message: string): ListenerReply => ({ status, body: JSON.stringify(status === 200 ? { ok: true } : { error: message }) });

/** Verifies and dispatches one request; returns the answer to send. */
export async function handleNotification<E>(rawBody: Buffer, headers: Record<string, string | undefined>, options: ListenerOptions<E>): Promise<ListenerReply> {
  const headerName = (options.signatureHeader ?? SIGNATURE_HEADER).toLowerCase();
  const signature = headers[headerName];
  if (!signature) return reply(400, `missing ${headerName} header`);
  if (!verifySignature(rawBody, signature, options.signingKey)) return reply(401, 'signature mismatch');
  if (options.toleranceSec !== undefined && !verifyStandardWebhook(rawBody, headers, options.signingKey, { toleranceSec: options.toleranceSec })) {
    return reply(401, 'webhook-signature or webhook-timestamp invalid or too old');
  }
  const notification = parseNotification(rawBody);
  if (!notification) return reply(400, 'body is not a notification');
  try {
    await options.onNotification(notification as Notification<E>, { rawBody, headers });
  } catch (error) {
    options.onError?.(error);
    return reply(500, 'handler failed');
  }
  return reply(200, 'ok');
}

/** Flattens node-style headers (string | string[] | undefined) to first values. */
export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = Array.isArray(v) ? v[0] : v;
  return out;
}
