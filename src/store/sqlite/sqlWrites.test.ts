// Recorded writes: what the writer thread decodes is what was recorded (every parameter kind, large
// blobs past the first buffer), and running them gives the same rows as running them directly.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { decodeWrites, directWrites, recordWrites } from './sqlWrites.js';

const SCHEMA = 'CREATE TABLE t (k BLOB PRIMARY KEY, n INTEGER, r REAL, s TEXT, x BLOB) WITHOUT ROWID';
const INSERT = 'INSERT INTO t (k, n, r, s, x) VALUES (?, ?, ?, ?, ?)';

describe('sql writes', () => {
  it('behavior: every parameter kind comes back as recorded, in order, across buffer growth', () => {
    const recorder = recordWrites();
    const pooled = Buffer.from('abcdef', 'hex'); // a view into Node's shared pool
    const big = new Uint8Array(10_000).map((_, i) => i % 251);
    recorder.run(INSERT, pooled, 7, 1.5, 'é text', null);
    recorder.run(INSERT, big.subarray(1, 33), -(2n ** 63n), 0, '', big);
    recorder.run('DELETE FROM t WHERE k = ?', new Uint8Array(0));
    expect(recorder.count()).toBe(3);
    const decoded: [string, unknown[]][] = [];
    decodeWrites(recorder.encoded(), (sql, params) => decoded.push([sql, params.map((p) => (Buffer.isBuffer(p) ? [...p] : p))]));
    expect(decoded).toEqual([
      [INSERT, [[0xab, 0xcd, 0xef], 7, 1.5, 'é text', null]],
      [INSERT, [[...big.subarray(1, 33)], -(2n ** 63n), 0, '', [...big]]],
      ['DELETE FROM t WHERE k = ?', [[]]],
    ]);
  });

  it('behavior: recorded writes run on another connection leave the same rows as the same writes run directly', () => {
    const direct = new Database(':memory:');
    const replayed = new Database(':memory:');
    for (const db of [direct, replayed]) db.exec(SCHEMA);
    const recorder = recordWrites();
    const now = directWrites(direct);
    for (let i = 0; i < 50; i++) {
      const params = [Uint8Array.of(i, i + 1), BigInt(i) * 1_000_000_007n, i / 3, `row ${i}`, i % 5 === 0 ? null : new Uint8Array(i).fill(i)] as const;
      now.run(INSERT, ...params);
      recorder.run(INSERT, ...params);
    }
    const prepared = new Map<string, Database.Statement>();
    replayed.transaction(() => decodeWrites(recorder.encoded(), (sql, params) => (prepared.get(sql) ?? prepared.set(sql, replayed.prepare(sql)).get(sql)!).run(...params)))();
    const rows = (db: Database.Database) => db.prepare('SELECT k, n, r, s, x, typeof(n) AS tn, typeof(r) AS tr FROM t ORDER BY k').safeIntegers(true).all();
    expect(rows(replayed)).toEqual(rows(direct));
    expect(rows(direct)).toHaveLength(50);
  });
});
