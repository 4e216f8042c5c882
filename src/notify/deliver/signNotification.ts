// Request headers of a notification: our HMAC signature over the raw body bytes and the Standard
// Webhooks headers (https://www.standardwebhooks.com/) for receivers that want replay protection.
import { createHmac } from 'node:crypto';

/** Hex HMAC-SHA256 of the body, keyed by the signing key's UTF-8 bytes (the whole `whsec_…` string). */
export function signatureHex(body: Uint8Array, signingKey: string): string {
  return createHmac('sha256', signingKey).update(body).digest('hex');
}

/** Standard Webhooks key bytes: base64 after `whsec_`, as their libraries read it. */
function standardKeyBytes(signingKey: string): Buffer {
  return signingKey.startsWith('whsec_') ? Buffer.from(signingKey.slice(6), 'base64') : Buffer.from(signingKey, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per the Standard Webhooks spec. */
export function standardWebhookSignature(eventId: string, timestampSec: number, body: Uint8Array, signingKey: string): string {
  const mac = createHmac('sha256', standardKeyBytes(signingKey));
  mac.update(`${eventId}.${timestampSec}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * Headers of one attempt. With several keys (rotation grace period) each signature header lists
 * one signature per key, current key first: `X-Service-Signature: <hex>,<hex>`. `signatureAliases`
 * repeat X-Service-Signature under more header names.
 */
export function notificationHeaders(
  eventId: string,
  body: Uint8Array,
  signingKeys: readonly string[],
  nowMs: number,
  userAgent: string,
  signatureAliases: readonly string[] = [],
): Record<string, string> {
  const timestampSec = Math.floor(nowMs / 1000);
  const signature = signingKeys.map((k) => signatureHex(body, k)).join(',');
  return {
    'Content-Type': 'application/json',
    'Content-Length': String(body.byteLength),
    'User-Agent': userAgent,
    'X-Service-Signature': signature,
    // Same value under other names, e.g. X-Alchemy-Signature for listeners written for the hosted provider.
    ...Object.fromEntries(signatureAliases.map((name) => [name, signature])),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': signingKeys.map((k) => standardWebhookSignature(eventId, timestampSec, body, k)).join(' '),
  };
}
