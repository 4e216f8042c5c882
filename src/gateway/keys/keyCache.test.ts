import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord, ApiKeyRepository } from '../../store/types.js';
import { createSqliteDatabase } from '../../store/sqlite/sqliteDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { createKeysRepository } from '../../store/keysRepository.js';
import { createManualClock } from '../clock.js';
import { createApiKey, hashApiKey } from './apiKeys.js';
import { createKeyCache } from './keyCache.js';

function record(id: string): ApiKeyRecord {
  return { id, name: id, tier: 'free', active: true, keyPrefix: 'x', allowedOrigins: null, createdAt: 0, lastUsedAt: null, revokedAt: null };
}

/** A repository that counts lookups; only findByHash and revision are used by the cache. */
function countingRepo(known: Record<string, ApiKeyRecord>) {
  const calls: string[] = [];
  const repo = {
    findByHash: async (hash: string) => {
      calls.push(hash);
      return known[hash] ?? null;
    },
    revision: async () => 1,
  } as unknown as ApiKeyRepository;
  return { repo, calls };
}

describe('createKeyCache', () => {
  it('default: a found key is looked up once within the TTL, then again', async () => {
    const clock = createManualClock();
    const { repo, calls } = countingRepo({ [hashApiKey('secret-1')]: record('k1') });
    const cache = createKeyCache({ repo, clock, ttlMs: 1000 });
    expect((await cache.lookup('secret-1'))?.id).toBe('k1');
    expect((await cache.lookup('secret-1'))?.id).toBe('k1');
    expect(calls).toHaveLength(1);
    clock.advance(1000);
    await cache.lookup('secret-1');
    expect(calls).toHaveLength(2);
  });

  it('behavior: unknown keys are remembered for the negative TTL', async () => {
    const clock = createManualClock();
    const { repo, calls } = countingRepo({});
    const cache = createKeyCache({ repo, clock, negativeTtlMs: 100 });
    expect(await cache.lookup('nope-nope')).toBeNull();
    expect(await cache.lookup('nope-nope')).toBeNull();
    expect(calls).toHaveLength(1);
    clock.advance(100);
    await cache.lookup('nope-nope');
    expect(calls).toHaveLength(2);
  });

  it('behavior: concurrent misses share one lookup', async () => {
    const { repo, calls } = countingRepo({ [hashApiKey('secret-1')]: record('k1') });
    const cache = createKeyCache({ repo, clock: createManualClock() });
    await Promise.all([cache.lookup('secret-1'), cache.lookup('secret-1'), cache.lookup('secret-1')]);
    expect(calls).toHaveLength(1);
  });

  it('behavior: invalidate drops a key so the next lookup reads the store', async () => {
    const { repo, calls } = countingRepo({ [hashApiKey('secret-1')]: record('k1') });
    const cache = createKeyCache({ repo, clock: createManualClock() });
    await cache.lookup('secret-1');
    cache.invalidate('k1');
    await cache.lookup('secret-1');
    expect(calls).toHaveLength(2);
  });

  it('behavior: the cache never holds more than maxEntries', async () => {
    const { repo } = countingRepo({});
    const cache = createKeyCache({ repo, clock: createManualClock(), maxEntries: 10 });
    for (let i = 0; i < 50; i++) await cache.lookup(`junk-key-${i}`);
    expect(cache.size).toBe(10);
  });

  it('behavior: a revocation in the store by another process is seen within revisionCheckMs, long before the TTL', async () => {
    const db = createSqliteDatabase({ filename: ':memory:' });
    await migrate(db);
    const store = createKeysRepository(db);
    const { record, apiKey } = await createApiKey(store, { name: 'k', tier: 'free' });
    const clock = createManualClock();
    const cache = createKeyCache({ repo: store, clock, ttlMs: 30_000, revisionCheckMs: 200 });
    expect((await cache.lookup(apiKey))?.active).toBe(true);
    expect(cache.peek(apiKey)?.active).toBe(true);
    // Another process (the CLI) revokes through its own repository on the same store.
    await createKeysRepository(db).revoke(record.id, clock.now());
    clock.advance(199);
    expect(cache.peek(apiKey)?.active).toBe(true);
    clock.advance(1);
    // Due: the check starts in the background, this request is answered from the cache...
    expect(cache.peek(apiKey)?.active).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    // ...and once the store has answered, the revocation is seen.
    expect(cache.peek(apiKey)).toBeUndefined();
    expect((await cache.lookup(apiKey))?.active).toBe(false);
    expect(cache.peek(apiKey)?.active).toBe(false);
    await db.close();
  });

  it('behavior: a store slow to tell its revision (a long write holds it) holds no request, up to revisionMaxStaleMs', async () => {
    const { repo } = countingRepo({ [hashApiKey('secret-1')]: record('k1') });
    let release: (() => void) | undefined;
    let revision = 1;
    const slow = {
      ...repo,
      findByHash: repo.findByHash,
      revision: () => new Promise<number>((resolve) => (release = () => resolve(revision))),
    } as ApiKeyRepository;
    const clock = createManualClock();
    const cache = createKeyCache({ repo: slow, clock, ttlMs: 30_000, revisionCheckMs: 200, revisionMaxStaleMs: 2000 });
    const first = cache.lookup('secret-1');
    release!();
    expect((await first)?.id).toBe('k1');
    // The store is now busy: checks do not answer. Requests keep being served from the cache...
    clock.advance(1500);
    expect(cache.peek('secret-1')?.id).toBe('k1');
    expect((await cache.lookup('secret-1'))?.id).toBe('k1');
    // ...until the last answer is revisionMaxStaleMs old: then they wait for the store.
    clock.advance(500);
    expect(cache.peek('secret-1')).toBeUndefined();
    let settled = false;
    const waiting = cache.lookup('secret-1').then((r) => ((settled = true), r));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    revision = 2;
    release!();
    expect((await waiting)?.id).toBe('k1');
  });

  it('behavior: while the store cannot tell its revision, cached keys are served up to their TTL', async () => {
    let up = true;
    const { repo } = countingRepo({ [hashApiKey('secret-1')]: record('k1') });
    const flaky = { ...repo, findByHash: repo.findByHash, revision: async () => (up ? 1 : Promise.reject(new Error('store down'))) } as ApiKeyRepository;
    const clock = createManualClock();
    const cache = createKeyCache({ repo: flaky, clock, ttlMs: 1000 });
    await cache.lookup('secret-1');
    up = false;
    clock.advance(500);
    expect((await cache.lookup('secret-1'))?.id).toBe('k1');
    clock.advance(500);
    await expect(cache.lookup('secret-1')).resolves.toMatchObject({ id: 'k1' });
  });
});
