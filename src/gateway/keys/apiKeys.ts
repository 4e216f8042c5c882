// API key material: generation, hashing for storage, the display prefix, and creating keys in a
// repository. The secret is returned once at creation and never stored.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ApiKeyRecord, ApiKeyRepository, ApiKeyTier } from '../../store/types.js';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Generated keys are 32 base62 characters (about 190 bits). */
export const API_KEY_LENGTH = 32;
const PREFIX_LENGTH = 6;
/** What a caller-chosen key (e.g. `--dev-api-key`) may look like; safe in a URL path segment. */
export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** A fresh random key of 32 base62 characters, by rejection sampling so every character is uniform. */
export function generateApiKey(): string {
  let out = '';
  while (out.length < API_KEY_LENGTH) {
    for (const byte of randomBytes(48)) {
      // 248 = 4 * 62: bytes at or above it would bias the first characters.
      if (byte < 248 && out.length < API_KEY_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/** Lowercase hex SHA-256 of a key: what the store keeps and looks keys up by. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The non-secret start of a key shown in listings. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

export function isValidApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

export interface CreateApiKeyOptions {
  name: string;
  tier: ApiKeyTier;
  allowedOrigins?: string[] | null;
  /** Use this secret instead of generating one (must match API_KEY_PATTERN). */
  key?: string;
}

/** Creates a key; the result's `apiKey` is the only time the secret is available. */
export async function createApiKey(
  repo: ApiKeyRepository,
  options: CreateApiKeyOptions,
  clock: Clock = systemClock,
): Promise<{ record: ApiKeyRecord; apiKey: string }> {
  const apiKey = options.key ?? generateApiKey();
  if (!isValidApiKey(apiKey)) throw new TypeError('API key must be 8-128 characters of A-Z a-z 0-9 _ -');
  const record = await repo.create({
    id: `key_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
    name: options.name,
    tier: options.tier,
    keyHash: hashApiKey(apiKey),
    keyPrefix: apiKeyPrefix(apiKey),
    allowedOrigins: options.allowedOrigins?.length ? options.allowedOrigins : null,
    createdAt: clock.now(),
  });
  return { record, apiKey };
}

export interface EnsureKeyOptions {
  key: string;
  tier: ApiKeyTier;
  name: string;
}

/**
 * Makes sure `key` exists, is active and has `tier` (used for the dev key at start-up): creates it
 * when missing, otherwise reactivates it and sets the tier. Returns the stored record.
 */
export async function ensureKey(repo: ApiKeyRepository, options: EnsureKeyOptions, clock: Clock = systemClock): Promise<ApiKeyRecord> {
  const existing = await repo.findByHash(hashApiKey(options.key));
  if (!existing) return (await createApiKey(repo, options, clock)).record;
  if (existing.active && existing.tier === options.tier) return existing;
  const updated = await repo.update(existing.id, { tier: options.tier, active: true });
  if (!updated) throw new Error(`api key ${existing.id} vanished while updating it`);
  return updated;
}
