// SqlDatabase on a SQLite file through better-sqlite3 (synchronous, in-process). Statements are
// serialised through one async lock so a transaction's statements never interleave with others.
import Database from 'better-sqlite3';
import type { SqlDatabase, SqlExecutor, SqlRow, SqlValue } from '../sql.js';
import { createAsyncLock } from '../asyncLock.js';
import { preparePrivateDatabaseFile } from './privateDatabaseFile.js';
import { startWalCheckpointer, type WalCheckpointer } from './walCheckpointer.js';
import { StorageFullError, UnreadableDataFileError } from '../../rpc/errors.js';
import { basename } from 'node:path';

export interface SqliteDatabaseOptions {
  /** File path, or ':memory:'. */
  filename: string;
  /**
   * Checkpoint the WAL from a worker thread instead of inside the COMMIT that fills it (the
   * service's store: a large write then never holds the event loop for the copy). Default false.
   */
  checkpointInWorker?: boolean;
}

/** `$1 … $n` placeholders rewritten to `?`, and which parameter (0-based) each `?` takes. */
function placeholderOrder(sql: string): { sql: string; order: number[] } {
  const order: number[] = [];
  return { sql: sql.replace(/\$(\d+)/g, (_, n: string) => (order.push(Number(n) - 1), '?')), order };
}

function withOrder(conversion: { sql: string; order: number[] }, params: readonly SqlValue[]): { sql: string; args: SqlValue[] } {
  return { sql: conversion.sql, args: conversion.order.map((i) => params[i] ?? null) };
}

/** Rewrites `$1 … $n` placeholders to `?` and reorders the arguments to match. */
export function toSqlitePlaceholders(sql: string, params: readonly SqlValue[]): { sql: string; args: SqlValue[] } {
  return withOrder(placeholderOrder(sql), params);
}

export function createSqliteDatabase(options: SqliteDatabaseOptions): SqlDatabase {
  // The file holds signing keys and API keys: 0600, and SQLite's -wal/-shm inherit that mode.
  preparePrivateDatabaseFile(options.filename);
  const db = new Database(options.filename);
  try {
    // The first pragma reads the file's header: a corrupt file fails here, named.
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db.close();
    throw new UnreadableDataFileError(options.filename, error);
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  let checkpointer: WalCheckpointer | undefined;
  if (options.checkpointInWorker && options.filename !== ':memory:') {
    db.pragma('wal_autocheckpoint = 0');
    checkpointer = startWalCheckpointer(options.filename, {
      // Without the worker, SQLite's own checkpoints (on the main thread) keep the WAL bounded.
      onFailure: () => {
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
      },
    });
  }
  const statements = new Map<string, Database.Statement>();
  // Placeholder order per SQL text: a 400-row insert has 800 placeholders, converted once.
  const conversions = new Map<string, { sql: string; order: number[] }>();
  const lock = createAsyncLock();

  function convert(sql: string, params: readonly SqlValue[]): { sql: string; args: SqlValue[] } {
    let conversion = conversions.get(sql);
    if (!conversion) conversions.set(sql, (conversion = placeholderOrder(sql)));
    return withOrder(conversion, params);
  }

  function prepare(sql: string): Database.Statement {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  }

  // A full disk is the caller's StorageFullError naming the file (HTTP 507), never an internal error.
  const file = basename(options.filename);
  const full = (error: unknown) => StorageFullError.from(error, file);
  const direct: SqlExecutor = {
    async query<R extends SqlRow>(sql: string, params: readonly SqlValue[] = []) {
      const q = convert(sql, params);
      const stmt = prepare(q.sql);
      try {
        return (stmt.reader ? stmt.all(...q.args) : (stmt.run(...q.args), [])) as R[];
      } catch (error) {
        throw full(error);
      }
    },
    async execute(sql: string, params: readonly SqlValue[] = []) {
      const q = convert(sql, params);
      try {
        return prepare(q.sql).run(...q.args).changes;
      } catch (error) {
        throw full(error);
      }
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
          throw full(error);
        }
      }),
    async close() {
      await lock.run(async () => {
        // The worker's connection closes first, so the main one is the last and removes the WAL.
        await checkpointer?.close();
        db.close();
      });
    },
  };
}
