// SqlDatabase on PostgreSQL through a `pg` pool; each transaction holds one pooled client.
import pg from 'pg';
import type { SqlDatabase, SqlExecutor, SqlRow, SqlValue } from '../sql.js';

export interface PostgresDatabaseOptions {
  connectionString: string;
  /** Schema to create (if missing) and use for every connection; lets tests run side by side. */
  schema?: string;
  maxConnections?: number;
}

function toPgParams(params: readonly SqlValue[]): unknown[] {
  return params.map((p) => (typeof p === 'bigint' ? p.toString() : p));
}

export async function createPostgresDatabase(options: PostgresDatabaseOptions): Promise<SqlDatabase> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 10 });
  // An idle pooled connection the server drops (a restart, failover, pg_terminate_backend) is
  // reported here and already removed from the pool; unheard, the 'error' event would end the process.
  // The next query opens a fresh connection; queries in flight fail and their callers retry.
  pool.on('error', () => undefined);
  // A checked-out connection reports such a drop on itself: heard once per connection, so the query
  // in flight fails (and is retried by its caller) instead of the process ending.
  const heard = new WeakSet<pg.PoolClient>();
  const checkout = async (): Promise<pg.PoolClient> => {
    const client = await pool.connect();
    if (!heard.has(client)) {
      heard.add(client);
      client.on('error', () => undefined);
    }
    return client;
  };
  if (schema) {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    pool.on('connect', (client) => {
      client.query(`SET search_path TO ${schema}`).catch(() => undefined);
    });
  }
  const run = async (client: pg.Pool | pg.PoolClient, sql: string, params: readonly SqlValue[] = []) => {
    if (schema && client instanceof pg.Pool) {
      const c = await checkout();
      try {
        await c.query(`SET search_path TO ${schema}`);
        return await c.query(sql, toPgParams(params));
      } finally {
        c.release();
      }
    }
    return client.query(sql, toPgParams(params));
  };
  const executorFor = (client: pg.Pool | pg.PoolClient): SqlExecutor => ({
    async query<R extends SqlRow>(sql: string, params?: readonly SqlValue[]) {
      return (await run(client, sql, params)).rows as R[];
    },
    async execute(sql: string, params?: readonly SqlValue[]) {
      return (await run(client, sql, params)).rowCount ?? 0;
    },
  });
  const poolExecutor = executorFor(pool);
  return {
    dialect: 'postgres',
    query: poolExecutor.query,
    execute: poolExecutor.execute,
    async transaction(fn) {
      const client = await checkout();
      // A connection that cannot even roll back is broken: released with an error, the pool drops it.
      let broken = false;
      try {
        if (schema) await client.query(`SET search_path TO ${schema}`);
        await client.query('BEGIN');
        const result = await fn(executorFor(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
