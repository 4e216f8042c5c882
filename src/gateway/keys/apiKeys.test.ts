import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../../store/sqlite/sqliteDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { createKeysRepository } from '../../store/keysRepository.js';
import type { SqlDatabase } from '../../store/sql.js';
import type { ApiKeyRepository } from '../../store/types.js';
import { createManualClock } from '../clock.js';
import { apiKeyPrefix, createApiKey, ensureKey, generateApiKey, hashApiKey, isValidApiKey } from './apiKeys.js';

describe('api key material', () => {
  it('default: generated keys are 32 base62 characters and differ', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const k of keys) expect(k).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it('default: the hash is lowercase hex SHA-256 and the prefix is short', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(apiKeyPrefix('abcdefghij')).toBe('abcdef');
  });

  it('args: caller-chosen keys must be URL-safe and 8-128 long', () => {
    expect(isValidApiKey('dev-key_123')).toBe(true);
    expect(isValidApiKey('short')).toBe(false);
    expect(isValidApiKey('has/slash123')).toBe(false);
    expect(isValidApiKey('x'.repeat(129))).toBe(false);
  });
});

describe('createApiKey and ensureKey', () => {
  let db: SqlDatabase;
  let repo: ApiKeyRepository;
  beforeEach(async () => {
    db = createSqliteDatabase({ filename: ':memory:' });
    await migrate(db);
    repo = createKeysRepository(db);
  });
  afterEach(async () => db.close());

  it('default: stores only the hash and returns the secret once', async () => {
    const clock = createManualClock(1_000);
    const { record, apiKey } = await createApiKey(repo, { name: 'app', tier: 'payg' }, clock);
    expect(record).toMatchObject({ name: 'app', tier: 'payg', active: true, keyPrefix: apiKey.slice(0, 6), createdAt: 1_000, allowedOrigins: null });
    expect(record.id).toMatch(/^key_[0-9a-f]{16}$/);
    const rows = await db.query('SELECT * FROM api_keys');
    expect(JSON.stringify(rows)).not.toContain(apiKey);
    expect(await repo.findByHash(hashApiKey(apiKey))).toEqual(record);
  });

  it('error: refuses a malformed chosen key', async () => {
    await expect(createApiKey(repo, { name: 'x', tier: 'free', key: 'bad key!' })).rejects.toThrow(/8-128/);
  });

  it('behavior: ensureKey creates once, then reactivates and retiers the same key', async () => {
    const first = await ensureKey(repo, { key: 'dev-key-123456', tier: 'enterprise', name: 'dev' });
    expect(await ensureKey(repo, { key: 'dev-key-123456', tier: 'enterprise', name: 'dev' })).toEqual(first);
    await repo.revoke(first.id, 5);
    const again = await ensureKey(repo, { key: 'dev-key-123456', tier: 'payg', name: 'dev' });
    expect(again).toMatchObject({ id: first.id, active: true, tier: 'payg' });
    expect(await repo.list()).toHaveLength(1);
  });
});
