import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from './sqliteDatabase.js';

describe('WAL checkpoints in a worker thread', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('behavior: a large COMMIT leaves the copy into the database file to the worker, which does it soon after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-wal-'));
    dirs.push(dir);
    const file = join(dir, 'service.sqlite');
    const db = createSqliteDatabase({ filename: file, checkpointInWorker: true });
    await db.execute('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)');
    const sizeBefore = statSync(file).size;
    // About 8 MB: SQLite's own checkpoint (1000 pages, 4 MB) would run inside this COMMIT.
    await db.transaction(async (tx) => {
      for (let i = 0; i < 2000; i++) await tx.execute('INSERT INTO t (k, v) VALUES ($1, $2)', [i, 'x'.repeat(4000)]);
    });
    expect(statSync(file).size).toBe(sizeBefore);
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < 8_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(statSync(file).size).toBeGreaterThan(8_000_000);
    expect(await db.query('SELECT COUNT(*) AS n FROM t')).toEqual([{ n: 2000 }]);
    await db.close();
    // The worker's connection closed first: the main one was the last and removed the WAL.
    expect(existsSync(`${file}-wal`)).toBe(false);
  }, 20_000);
});
