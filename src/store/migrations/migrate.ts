// Applies the ordered list of schema migrations once each, recording them in `schema_migrations`.
// Several processes may start together on one PostgreSQL database: each migration runs in a
// transaction that first takes a transaction-scoped advisory lock (one per schema) and then
// re-reads `schema_migrations`, so exactly one process applies it and the others see it done.
// PostgreSQL's DDL is transactional, so a migration is applied whole or not at all. SQLite's
// `BEGIN IMMEDIATE` already serialises writers, and the same re-check inside the transaction holds.
import type { SqlDatabase, SqlExecutor } from '../sql.js';
import { migrations } from './index.js';

export interface Migration {
  /** Unique, ordered id such as `001_api_keys`. */
  id: string;
  /** Portable SQL statements (run in order, in one transaction). */
  statements: readonly string[];
}

const CREATE_TABLE = 'CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)';

/**
 * Waits for the schema's migration lock (PostgreSQL), held until the caller's transaction ends.
 * Keyed by the current schema, so side-by-side schemas (tests) do not wait for each other.
 */
async function lockMigrations(tx: SqlExecutor, dialect: SqlDatabase['dialect']): Promise<void> {
  if (dialect !== 'postgres') return;
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('tracehook:migrate:' || current_schema()))");
}

export async function migrate(db: SqlDatabase, list: readonly Migration[] = migrations): Promise<string[]> {
  // Even `CREATE TABLE IF NOT EXISTS` races on PostgreSQL (a unique violation in pg_type), so it
  // runs under the lock too.
  await db.transaction(async (tx) => {
    await lockMigrations(tx, db.dialect);
    await tx.execute(CREATE_TABLE);
  });
  const done = new Set((await db.query<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
  const applied: string[] = [];
  for (const m of [...list].sort((a, b) => a.id.localeCompare(b.id))) {
    if (done.has(m.id)) continue;
    const ran = await db.transaction(async (tx) => {
      await lockMigrations(tx, db.dialect);
      // Another process may have applied it while we waited for the lock.
      if ((await tx.query('SELECT id FROM schema_migrations WHERE id = $1', [m.id])).length) return false;
      for (const statement of m.statements) await tx.execute(statement);
      await tx.execute('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [m.id, Date.now()]);
      return true;
    });
    if (ran) applied.push(m.id);
  }
  return applied;
}
