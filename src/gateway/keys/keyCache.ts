// Short-lived in-memory cache of API key lookups, so authenticating a request costs no database
// round trip. Unknown keys are cached too (briefly), so a flood of bad keys cannot hammer the store.
// The store's key revision (bumped by every create, revoke and update, from any process such as the
// CLI) is checked every revisionCheckMs in the background of the requests that find it due; a
// change empties the cache. Requests wait for a check only when the last answer is older than
// revisionMaxStaleMs, so a store busy with a long write (a 100,000-address webhook) holds no request.
import type { ApiKeyRecord, ApiKeyRepository } from '../../store/types.js';
import type { Clock } from '../clock.js';
import { hashApiKey } from './apiKeys.js';

export interface KeyCacheOptions {
  repo: ApiKeyRepository;
  clock: Clock;
  /** How long a found key is trusted at most (also while the store cannot be asked for its revision). */
  ttlMs?: number;
  /** How long "no such key" is remembered. */
  negativeTtlMs?: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries?: number;
  /** How old the last revision check may be before a new one is started (in the background). */
  revisionCheckMs?: number;
  /** How old it may be before a request waits for the check: bounds how late a revocation is seen when the store is slow. */
  revisionMaxStaleMs?: number;
}

export interface KeyCache {
  /** The cached answer for a secret (a key or null), or undefined when it must be looked up. */
  peek(secret: string): ApiKeyRecord | null | undefined;
  /** The active or inactive key for a secret, or null when no key has that secret. */
  lookup(secret: string): Promise<ApiKeyRecord | null>;
  /** Drops every cached entry of a key (after revoke or update in this process). */
  invalidate(keyId: string): void;
  /** Drops every entry (another process changed a key: PostgreSQL's LISTEN/NOTIFY says so). */
  clear(): void;
  readonly size: number;
}

interface Entry {
  record: ApiKeyRecord | null;
  expiresAt: number;
}

export const KEY_CACHE_DEFAULTS = { ttlMs: 30_000, negativeTtlMs: 5_000, maxEntries: 10_000, revisionCheckMs: 200, revisionMaxStaleMs: 2_000 } as const;

export function createKeyCache(options: KeyCacheOptions): KeyCache {
  const ttlMs = options.ttlMs ?? KEY_CACHE_DEFAULTS.ttlMs;
  const negativeTtlMs = options.negativeTtlMs ?? KEY_CACHE_DEFAULTS.negativeTtlMs;
  const maxEntries = options.maxEntries ?? KEY_CACHE_DEFAULTS.maxEntries;
  const revisionCheckMs = options.revisionCheckMs ?? KEY_CACHE_DEFAULTS.revisionCheckMs;
  const revisionMaxStaleMs = Math.max(revisionCheckMs, options.revisionMaxStaleMs ?? KEY_CACHE_DEFAULTS.revisionMaxStaleMs);
  const { clock, repo } = options;
  // Keyed by the secret itself: memory is not "at rest", and it saves a hash per request.
  const entries = new Map<string, Entry>();
  const pending = new Map<string, Promise<ApiKeyRecord | null>>();
  // Bumped whenever entries are dropped, so a lookup that started before does not cache the old record.
  let generation = 0;
  let revision: number | undefined;
  /** clock.now() when the revision in hand was asked for. */
  let revisionAskedAt = Number.NEGATIVE_INFINITY;
  let checking: Promise<void> | undefined;

  const dropAll = () => {
    generation++;
    entries.clear();
    pending.clear();
  };

  const checkRevision = (): Promise<void> => {
    const askedAt = clock.now();
    checking ??= repo.revision().then(
      (current) => {
        checking = undefined;
        if (revision !== undefined && current !== revision) dropAll();
        revision = current;
        revisionAskedAt = askedAt;
      },
      () => {
        // The store is unreachable: cached keys stay trusted up to their TTL (nobody can revoke
        // through a store that is down); asked again after revisionCheckMs.
        checking = undefined;
        revisionAskedAt = askedAt;
      },
    );
    return checking;
  };

  /**
   * Whether cached answers may be used now. A due check is started without waiting for it while the
   * last answer is younger than revisionMaxStaleMs; past that, the caller must await `checking`.
   */
  const usable = (): boolean => {
    const age = clock.now() - revisionAskedAt;
    if (age < revisionCheckMs) return true;
    void checkRevision();
    return age < revisionMaxStaleMs;
  };

  const load = (secret: string): Promise<ApiKeyRecord | null> => {
    const startedAt = generation;
    const promise: Promise<ApiKeyRecord | null> = repo.findByHash(hashApiKey(secret)).then(
      (record) => {
        if (pending.get(secret) === promise) pending.delete(secret);
        if (startedAt === generation) {
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
          entries.set(secret, { record, expiresAt: clock.now() + (record ? ttlMs : negativeTtlMs) });
        }
        return record;
      },
      (error: unknown) => {
        if (pending.get(secret) === promise) pending.delete(secret);
        throw error;
      },
    );
    pending.set(secret, promise);
    return promise;
  };

  const cached = (secret: string): ApiKeyRecord | null | undefined => {
    const hit = entries.get(secret);
    if (!hit) return undefined;
    if (hit.expiresAt > clock.now()) return hit.record;
    entries.delete(secret);
    return undefined;
  };

  return {
    peek: (secret) => (usable() ? cached(secret) : undefined),
    async lookup(secret) {
      if (!usable()) await checkRevision();
      const hit = cached(secret);
      if (hit !== undefined) return hit;
      return pending.get(secret) ?? load(secret);
    },
    invalidate(keyId) {
      generation++;
      for (const [secret, entry] of entries) {
        if (entry.record?.id === keyId) entries.delete(secret);
      }
    },
    clear: dropAll,
    get size() {
      return entries.size;
    },
  };
}
