// SqlDatabase on a SQLite file through better-sqlite3 (synchronous, in-process). Statements are
// serialised through one async lock so a transaction's statements never interleave with others.
import Database from 'better-sqlite3';
import type { SqlDatabase, SqlExecutor, SqlRow, SqlValue } from '../sql.js';
import { createAsyncLock } from '../asyncLock.js';
import { preparePrivateDatabaseFile } from './privateDatabaseFile.js';

export interface SqliteDatabaseOptions {
  /** File path, or ':memory:'. */
  filename: string;
}

/** Rewrites `$1 … $n` placeholders to `?` and reorders the arguments to match. */
export function toSqlitePlaceholders(sql: string, params: readonly SqlValue[]): { sql: string; args: SqlValue[] } {
  const args: SqlValue[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    args.push(params[Number(n) - 1] ?? null);
    return '?';
  });
  return { sql: text, args };
}

export function createSqliteDatabase(options: SqliteDatabaseOptions): SqlDatabase {
  // The file holds signing keys and API keys: 0600, and SQLite's -wal/-shm inherit that mode.
  preparePrivateDatabaseFile(options.filename);
  const db = new Database(options.filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  const statements = new Map<string, Database.Statement>();
  const lock = createAsyncLock();

  function prepare(sql: string): Database.Statement {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  }

  const direct: SqlExecutor = {
    async query<R extends SqlRow>(sql: string, params: readonly SqlValue[] = []) {
      const q = toSqlitePlaceholders(sql, params);
      const stmt = prepare(q.sql);
      return (stmt.reader ? stmt.all(...q.args) : (stmt.run(...q.args), [])) as R[];
    },
    async execute(sql: string, params: readonly SqlValue[] = []) {
      const q = toSqlitePlaceholders(sql, params);
      return prepare(q.sql).run(...q.args).changes;
    },
  };

  return {
    dialect: 'sqlite',
    query: (sql, params) => lock.run(() => direct.query(sql, params)),
    execute: (sql, params) => lock.run(() => direct.execute(sql, params)),
    transaction: (fn) =>
      lock.run(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(direct);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw error;
        }
      }),
    async close() {
      await lock.run(async () => db.close());
    },
  };
}
