import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from './sql.js';
import { toNumber } from './sql.js';
import { migrate } from './migrations/migrate.js';
import { testDatabases } from './testing/openTestDatabases.js';
import { toSqlitePlaceholders } from './sqlite/sqliteDatabase.js';

describe('toSqlitePlaceholders', () => {
  it('args: reorders repeated and out-of-order $n placeholders', () => {
    expect(toSqlitePlaceholders('SELECT $2, $1, $2', ['a', 'b'])).toEqual({ sql: 'SELECT ?, ?, ?', args: ['b', 'a', 'b'] });
  });
});

for (const impl of testDatabases) {
  describe(`SqlDatabase (${impl.name})`, () => {
    let db: SqlDatabase;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ db, cleanup } = await impl.open());
      await db.execute('CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL)');
    });
    afterEach(async () => cleanup());

    it('default: writes and reads rows with $n placeholders', async () => {
      expect(await db.execute('INSERT INTO items (id, n) VALUES ($1, $2)', ['a', 1_700_000_000_000])).toBe(1);
      const rows = await db.query<{ id: string; n: unknown }>('SELECT id, n FROM items WHERE id = $1', ['a']);
      expect(rows.map((r) => [r.id, toNumber(r.n)])).toEqual([['a', 1_700_000_000_000]]);
    });

    it('behavior: a transaction that throws leaves nothing behind', async () => {
      await expect(
        db.transaction(async (tx) => {
          await tx.execute('INSERT INTO items (id, n) VALUES ($1, $2)', ['x', 1]);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await db.query('SELECT * FROM items')).toEqual([]);
    });

    it('behavior: statements issued during a transaction do not join it', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const txDone = db
        .transaction(async (tx) => {
          await tx.execute('INSERT INTO items (id, n) VALUES ($1, $2)', ['in-tx', 1]);
          await gate;
          throw new Error('rollback');
        })
        .catch(() => 'rolled back');
      const outside = db.execute('INSERT INTO items (id, n) VALUES ($1, $2)', ['outside', 2]);
      release();
      expect(await txDone).toBe('rolled back');
      await outside;
      const ids = (await db.query<{ id: string }>('SELECT id FROM items ORDER BY id')).map((r) => r.id);
      expect(ids).toEqual(['outside']);
    });

    it('behavior: migrations apply once', async () => {
      const list = [{ id: '001_t', statements: ['CREATE TABLE mig_t (k TEXT PRIMARY KEY)'] }];
      expect(await migrate(db, list)).toEqual(['001_t']);
      expect(await migrate(db, list)).toEqual([]);
    });
  });
}
