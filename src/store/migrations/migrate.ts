// Applies the ordered list of schema migrations once each, recording them in `schema_migrations`.
import type { SqlDatabase } from '../sql.js';
import { migrations } from './index.js';

export interface Migration {
  /** Unique, ordered id such as `001_api_keys`. */
  id: string;
  /** Portable SQL statements (run in order, in one transaction). */
  statements: readonly string[];
}

export async function migrate(db: SqlDatabase, list: readonly Migration[] = migrations): Promise<string[]> {
  await db.execute('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)');
  const done = new Set((await db.query<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
  const applied: string[] = [];
  for (const m of [...list].sort((a, b) => a.id.localeCompare(b.id))) {
    if (done.has(m.id)) continue;
    await db.transaction(async (tx) => {
      for (const statement of m.statements) await tx.execute(statement);
      await tx.execute('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [m.id, Date.now()]);
    });
    applied.push(m.id);
  }
  return applied;
}
