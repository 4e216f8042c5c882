// Short-lived in-memory cache of API key lookups, so authenticating a request costs no database
// round trip. Unknown keys are cached too (briefly), so a flood of bad keys cannot hammer the store.
import type { ApiKeyRecord, ApiKeyRepository } from '../../store/types.js';
import type { Clock } from '../clock.js';
import { hashApiKey } from './apiKeys.js';

export interface KeyCacheOptions {
  repo: ApiKeyRepository;
  clock: Clock;
  /** How long a found key is trusted; bounds how late another process's revocation is seen. */
  ttlMs?: number;
  /** How long "no such key" is remembered. */
  negativeTtlMs?: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries?: number;
}

export interface KeyCache {
  /** The cached answer for a secret (a key or null), or undefined when it must be looked up. */
  peek(secret: string): ApiKeyRecord | null | undefined;
  /** The active or inactive key for a secret, or null when no key has that secret. */
  lookup(secret: string): Promise<ApiKeyRecord | null>;
  /** Drops every cached entry of a key (after revoke or update in this process). */
  invalidate(keyId: string): void;
  readonly size: number;
}

interface Entry {
  record: ApiKeyRecord | null;
  expiresAt: number;
}

export const KEY_CACHE_DEFAULTS = { ttlMs: 30_000, negativeTtlMs: 5_000, maxEntries: 10_000 } as const;

export function createKeyCache(options: KeyCacheOptions): KeyCache {
  const ttlMs = options.ttlMs ?? KEY_CACHE_DEFAULTS.ttlMs;
  const negativeTtlMs = options.negativeTtlMs ?? KEY_CACHE_DEFAULTS.negativeTtlMs;
  const maxEntries = options.maxEntries ?? KEY_CACHE_DEFAULTS.maxEntries;
  // Keyed by the secret itself: memory is not "at rest", and it saves a hash per request.
  const entries = new Map<string, Entry>();
  const pending = new Map<string, Promise<ApiKeyRecord | null>>();
  // Bumped on invalidate, so a lookup that started before a revoke does not cache the old record.
  let generation = 0;

  const load = (secret: string): Promise<ApiKeyRecord | null> => {
    const startedAt = generation;
    const promise = options.repo.findByHash(hashApiKey(secret)).then(
      (record) => {
        pending.delete(secret);
        if (startedAt === generation) {
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
          entries.set(secret, { record, expiresAt: options.clock.now() + (record ? ttlMs : negativeTtlMs) });
        }
        return record;
      },
      (error: unknown) => {
        pending.delete(secret);
        throw error;
      },
    );
    pending.set(secret, promise);
    return promise;
  };

  const peek = (secret: string): ApiKeyRecord | null | undefined => {
    const hit = entries.get(secret);
    if (!hit) return undefined;
    if (hit.expiresAt > options.clock.now()) return hit.record;
    entries.delete(secret);
    return undefined;
  };

  return {
    peek,
    lookup(secret) {
      const hit = peek(secret);
      if (hit !== undefined) return Promise.resolve(hit);
      return pending.get(secret) ?? load(secret);
    },
    invalidate(keyId) {
      generation++;
      for (const [secret, entry] of entries) {
        if (entry.record?.id === keyId) entries.delete(secret);
      }
    },
    get size() {
      return entries.size;
    },
  };
}
