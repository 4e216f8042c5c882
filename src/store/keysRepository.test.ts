import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from './sql.js';
import { migrate } from './migrations/migrate.js';
import { testDatabases } from './testing/openTestDatabases.js';
import { createKeysRepository, KEYS_CHANGED_CHANNEL } from './keysRepository.js';
import { createNotifyChannel } from './postgres/notifyChannel.js';
import { TEST_POSTGRES_URL } from './testing/openTestDatabases.js';
import type { ApiKeyRepository, NewApiKey } from './types.js';

function newKey(id: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  return {
    id,
    name: `key ${id}`,
    tier: 'free',
    keyHash: `hash-${id}`,
    keyPrefix: id.slice(0, 4),
    allowedOrigins: null,
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}

for (const impl of testDatabases) {
  describe(`ApiKeyRepository (${impl.name})`, () => {
    let db: SqlDatabase;
    let cleanup: () => Promise<void>;
    let repo: ApiKeyRepository;
    beforeEach(async () => {
      ({ db, cleanup } = await impl.open());
      await migrate(db);
      repo = createKeysRepository(db);
    });
    afterEach(async () => cleanup());

    it.runIf(impl.name === 'postgres')('behavior: every key change notifies the keys channel at its commit (other gateways empty their caches)', async () => {
      const schema = (await db.query<{ s: string }>('SELECT current_schema() AS s'))[0]!.s;
      const channel = await createNotifyChannel({ connectionString: TEST_POSTGRES_URL, channel: KEYS_CHANGED_CHANNEL, schema, logger: { warn: () => undefined } });
      try {
        let heard = 0;
        channel.subscribe(() => heard++);
        // The channel fires once on connecting (missed changes are unknown); count from here.
        await new Promise((r) => setTimeout(r, 50));
        const before = heard;
        await repo.create(newKey('k1'));
        await repo.revoke('k1', 1_700_000_001_000);
        const until = Date.now() + 3000;
        while (heard < before + 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
        expect(heard - before).toBe(2);
      } finally {
        await channel.close();
      }
    });

    it('default: creates a key and finds it by id and by hash', async () => {
      const created = await repo.create(newKey('k1', { tier: 'payg', allowedOrigins: ['https://app.example'] }));
      expect(created).toEqual({
        id: 'k1',
        name: 'key k1',
        tier: 'payg',
        active: true,
        keyPrefix: 'k1',
        allowedOrigins: ['https://app.example'],
        createdAt: 1_700_000_000_000,
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(await repo.findById('k1')).toEqual(created);
      expect(await repo.findByHash('hash-k1')).toEqual(created);
      expect(await repo.findByHash('hash-nope')).toBeNull();
      expect(await repo.findById('nope')).toBeNull();
    });

    it('default: lists keys oldest first and never exposes the hash', async () => {
      await repo.create(newKey('b', { createdAt: 2 }));
      await repo.create(newKey('a', { createdAt: 1 }));
      const list = await repo.list();
      expect(list.map((k) => k.id)).toEqual(['a', 'b']);
      expect(JSON.stringify(list)).not.toContain('hash-');
    });

    it('error: refuses a second key with the same hash', async () => {
      await repo.create(newKey('k1'));
      await expect(repo.create(newKey('k2', { keyHash: 'hash-k1' }))).rejects.toThrow();
    });

    it('behavior: revoke deactivates once and keeps the first revocation time', async () => {
      await repo.create(newKey('k1'));
      expect(await repo.revoke('k1', 5000)).toMatchObject({ active: false, revokedAt: 5000 });
      expect(await repo.revoke('k1', 9000)).toMatchObject({ active: false, revokedAt: 5000 });
      expect(await repo.revoke('nope', 1)).toBeNull();
    });

    it('behavior: update changes tier and reactivates', async () => {
      await repo.create(newKey('k1'));
      await repo.revoke('k1', 10);
      expect(await repo.update('k1', { tier: 'enterprise', active: true })).toMatchObject({ tier: 'enterprise', active: true, revokedAt: null });
      expect(await repo.update('nope', { tier: 'payg' })).toBeNull();
    });

    it('behavior: the revision rises with every create, revoke and update, not with usage', async () => {
      const start = await repo.revision();
      await repo.create(newKey('k1'));
      const created = await repo.revision();
      expect(created).toBeGreaterThan(start);
      await repo.revoke('k1', 10);
      const revoked = await repo.revision();
      expect(revoked).toBeGreaterThan(created);
      await repo.update('k1', { active: true });
      const updated = await repo.revision();
      expect(updated).toBeGreaterThan(revoked);
      await repo.markUsed([{ id: 'k1', atMs: 20 }]);
      await repo.addUsage([{ keyId: 'k1', day: '2026-01-01', method: 'm', requests: 1, computeUnits: 1 }]);
      expect(await repo.revision()).toBe(updated);
    });

    it('behavior: markUsed only moves last-used forward', async () => {
      await repo.create(newKey('k1'));
      await repo.markUsed([{ id: 'k1', atMs: 2000 }]);
      await repo.markUsed([{ id: 'k1', atMs: 1000 }]);
      expect((await repo.findById('k1'))?.lastUsedAt).toBe(2000);
    });

    it('behavior: usage deltas add up per key, day and method', async () => {
      await repo.create(newKey('k1'));
      await repo.create(newKey('k2'));
      await repo.addUsage([
        { keyId: 'k1', day: '2026-01-01', method: 'ethblocknumber', requests: 2, computeUnits: 20 },
        { keyId: 'k1', day: '2026-01-02', method: 'tracetransaction', requests: 1, computeUnits: 40 },
        { keyId: 'k2', day: '2026-01-01', method: 'ethblocknumber', requests: 7, computeUnits: 70 },
      ]);
      await repo.addUsage([{ keyId: 'k1', day: '2026-01-01', method: 'ethblocknumber', requests: 3, computeUnits: 30 }]);
      expect(await repo.usage('k1', '2026-01-01', '2026-01-31')).toEqual([
        { day: '2026-01-01', method: 'ethblocknumber', requests: 5, computeUnits: 50 },
        { day: '2026-01-02', method: 'tracetransaction', requests: 1, computeUnits: 40 },
      ]);
      expect(await repo.usage('k1', '2026-01-02', '2026-01-02')).toHaveLength(1);
      expect(await repo.usage('k2', '2025-01-01', '2025-12-31')).toEqual([]);
    });

    it('error: usage for an unknown key is refused by the foreign key', async () => {
      await expect(
        repo.addUsage([{ keyId: 'ghost', day: '2026-01-01', method: 'x', requests: 1, computeUnits: 1 }]),
      ).rejects.toThrow();
    });

    it('default: ping answers', async () => {
      await expect(repo.ping()).resolves.toBeUndefined();
    });
  });
}
