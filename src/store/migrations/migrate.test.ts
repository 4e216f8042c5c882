import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SqlDatabase } from '../sql.js';
import { createPostgresDatabase } from '../postgres/postgresDatabase.js';
import { TEST_POSTGRES_URL, testDatabases } from '../testing/openTestDatabases.js';
import { migrate, type Migration } from './migrate.js';
import { migrations } from './index.js';

const counting: Migration = { id: '900_counting', statements: ['CREATE TABLE counted (n INTEGER)', 'INSERT INTO counted (n) VALUES (1)'] };

for (const impl of testDatabases) {
  describe(`migrate (${impl.name})`, () => {
    let cleanup: (() => Promise<void>) | undefined;
    afterEach(async () => cleanup?.());

    it('default: applies each migration once and nothing on a second run', async () => {
      const opened = await impl.open();
      cleanup = opened.cleanup;
      expect(await migrate(opened.db, [...migrations, counting])).toEqual([...migrations.map((m) => m.id), counting.id].sort());
      expect(await migrate(opened.db, [...migrations, counting])).toEqual([]);
      expect(await opened.db.query('SELECT n FROM counted')).toHaveLength(1);
    });
  });
}

describe('migrate (postgres, several processes at once)', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const dbs: SqlDatabase[] = [];
  afterEach(async () => {
    await Promise.all(dbs.map((db) => db.close()));
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it('behavior: six pools migrating one fresh schema together apply every migration exactly once', async () => {
    for (let i = 0; i < 6; i++) dbs.push(await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema, maxConnections: 2 }));
    const results = await Promise.all(dbs.map((db) => migrate(db, [...migrations, counting])));
    const all = results.flat().sort();
    expect(all).toEqual([...migrations.map((m) => m.id), counting.id].sort());
    expect(await dbs[0]!.query('SELECT n FROM counted')).toHaveLength(1);
  });
});
