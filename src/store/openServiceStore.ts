// Opens the service store: PostgreSQL when a URL is configured, otherwise SQLite in the data dir;
// applies pending migrations before anything uses it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlDatabase } from './sql.js';
import { createSqliteDatabase } from './sqlite/sqliteDatabase.js';
import { PRIVATE_DIR_MODE } from './sqlite/privateDatabaseFile.js';
import { createPostgresDatabase } from './postgres/postgresDatabase.js';
import { migrate } from './migrations/migrate.js';

export interface OpenServiceStoreOptions {
  dataDir: string;
  /** `postgres://…`; SQLite at `<dataDir>/service.sqlite` when absent. */
  databaseUrl?: string;
}

export async function openServiceStore(options: OpenServiceStoreOptions): Promise<SqlDatabase> {
  let db: SqlDatabase;
  if (options.databaseUrl) {
    db = await createPostgresDatabase({ connectionString: options.databaseUrl });
  } else {
    mkdirSync(options.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    db = createSqliteDatabase({ filename: join(options.dataDir, 'service.sqlite'), checkpointInWorker: true });
  }
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
