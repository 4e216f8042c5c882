// A fresh PostgreSQL database for one test run of several processes (each process connects by
// URL, so a schema of the shared database would not do), created on the test server and dropped
// at the end however its users left it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_POSTGRES_URL } from './openTestDatabases.js';

export interface ScratchDatabase {
  /** The database's URL on the test server. */
  url: string;
  create(): Promise<void>;
  /** Drops it, closing whatever connections are still open to it. */
  drop(): Promise<void>;
}

async function asAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** A database named `<prefix>_<random>`; nothing is created until `create()`. */
export function scratchDatabase(prefix: string): ScratchDatabase {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  return {
    url: TEST_POSTGRES_URL.replace(/\/[^/]*$/, `/${name}`),
    create: () => asAdmin(`CREATE DATABASE ${name}`),
    drop: () => asAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
