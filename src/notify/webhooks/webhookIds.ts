// Random identifiers and signing keys of the notify pipeline. Randomness is injected so tests can
// make ids reproducible; production uses node:crypto.
import { randomBytes as cryptoRandomBytes } from 'node:crypto';

export type RandomBytes = (size: number) => Uint8Array;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32 in lowercase, without padding. */
export function bytesToBase32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

export interface WebhookIds {
  /** `wh_` + 16 characters (80 random bits), the hosted provider's shape. */
  webhookId(): string;
  /** `whevt_` + 16 characters; stable for an event across retries and replays. */
  eventId(): string;
  /** `wha_` + 16 characters; one per delivery attempt. */
  attemptId(): string;
  /** `whsec_` + base64 of 24 random bytes (Standard Webhooks secret format). */
  signingKey(): string;
}

export function createWebhookIds(randomBytes: RandomBytes = cryptoRandomBytes): WebhookIds {
  const token = () => bytesToBase32(randomBytes(10));
  return {
    webhookId: () => `wh_${token()}`,
    eventId: () => `whevt_${token()}`,
    attemptId: () => `wha_${token()}`,
    signingKey: () => `whsec_${Buffer.from(randomBytes(24)).toString('base64')}`,
  };
}
