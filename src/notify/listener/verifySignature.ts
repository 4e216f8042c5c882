// Signature checks for webhook receivers, in constant time: our X-Service-Signature (hex HMAC-SHA256
// of the raw body) and the Standard Webhooks headers with a timestamp tolerance. Self-contained
// (node:crypto only) because it ships as `tracehook/listener`.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const MAX_SIGNATURES = 8;

function sameSecret(a: string, b: string): boolean {
  // Hash first so the comparison takes the same time whatever the lengths.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

function toBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/**
 * True when `signatureHeader` (the X-Service-Signature value) holds the hex HMAC-SHA256 of
 * `rawBody` under `signingKey`. During a key rotation the header lists one signature per key,
 * comma-separated, and `signingKey` may be several keys; any match verifies. Pass the body exactly
 * as received (bytes, or the undecoded string), never a re-serialised object.
 */
export function verifySignature(rawBody: string | Uint8Array, signatureHeader: string | null | undefined, signingKey: string | readonly string[]): boolean {
  if (!signatureHeader) return false;
  const keys = typeof signingKey === 'string' ? [signingKey] : signingKey;
  const given = signatureHeader.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean).slice(0, MAX_SIGNATURES);
  const body = toBytes(rawBody);
  let ok = false;
  for (const key of keys) {
    if (!key) continue;
    const expected = createHmac('sha256', key).update(body).digest('hex');
    // No early exit: every candidate is compared.
    for (const candidate of given) ok = sameSecret(expected, candidate) || ok;
  }
  return ok;
}

export interface StandardWebhookHeaders {
  'webhook-id'?: string | null;
  'webhook-timestamp'?: string | null;
  'webhook-signature'?: string | null;
}

/**
 * Verifies the Standard Webhooks headers (https://www.standardwebhooks.com/): a `v1` signature of
 * `id.timestamp.body` under the key (base64 after `whsec_`), and a timestamp within
 * `toleranceSec` of now, which rejects captured requests replayed later.
 */
export function verifyStandardWebhook(
  rawBody: string | Uint8Array,
  headers: StandardWebhookHeaders,
  signingKey: string | readonly string[],
  options: { toleranceSec?: number; nowMs?: number } = {},
): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\d{1,12}$/.test(timestamp)) return false;
  const nowSec = Math.floor((options.nowMs ?? Date.now()) / 1000);
  if (Math.abs(nowSec - Number(timestamp)) > (options.toleranceSec ?? 300)) return false;
  const keys = typeof signingKey === 'string' ? [signingKey] : signingKey;
  const given = signatures.split(' ').filter((s) => s.startsWith('v1,')).slice(0, MAX_SIGNATURES);
  let ok = false;
  for (const key of keys) {
    if (!key) continue;
    const secret = key.startsWith('whsec_') ? Buffer.from(key.slice(6), 'base64') : Buffer.from(key, 'utf8');
    const expected = `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(toBytes(rawBody)).digest('base64')}`;
    for (const candidate of given) ok = sameSecret(expected, candidate) || ok;
  }
  return ok;
}
