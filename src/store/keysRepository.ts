// API keys and their daily usage in the portable SQL store. Knows nothing about how keys are
// generated or hashed (the gateway does that); it stores what it is given.
import type { SqlDatabase, SqlExecutor, SqlRow } from './sql.js';
import { toNumber } from './sql.js';
import type { ApiKeyRecord, ApiKeyRepository, ApiKeyTier, ApiKeyUsageRow, NewApiKey } from './types.js';
import { API_KEY_TIERS } from './types.js';

const COLUMNS = 'id, key_prefix, name, tier, active, allowed_origins, created_at, last_used_at, revoked_at';

function rowToKey(row: SqlRow): ApiKeyRecord {
  const tier = String(row.tier);
  if (!(API_KEY_TIERS as readonly string[]).includes(tier)) throw new Error(`api_keys row ${String(row.id)} has unknown tier ${tier}`);
  return {
    id: String(row.id),
    name: String(row.name),
    tier: tier as ApiKeyTier,
    active: toNumber(row.active) === 1,
    keyPrefix: String(row.key_prefix),
    allowedOrigins: row.allowed_origins == null ? null : (JSON.parse(String(row.allowed_origins)) as string[]),
    createdAt: toNumber(row.created_at),
    lastUsedAt: row.last_used_at == null ? null : toNumber(row.last_used_at),
    revokedAt: row.revoked_at == null ? null : toNumber(row.revoked_at),
  };
}

/** PostgreSQL channel (plus `_<schema>`) told of every key change, at its commit. */
export const KEYS_CHANGED_CHANNEL = 'tracehook_keys';

/**
 * Bumps the keys' revision counter (migration 005); call inside the transaction of the change. On
 * PostgreSQL it also notifies KEYS_CHANGED_CHANNEL, which PostgreSQL delivers when the change
 * commits, so every gateway (and a change made by the CLI) empties its key cache at once.
 */
async function bumpRevision(tx: SqlExecutor, dialect: SqlDatabase['dialect']): Promise<void> {
  await tx.execute('UPDATE api_keys_revision SET revision = revision + 1 WHERE id = 1');
  if (dialect === 'postgres') await tx.query(`SELECT pg_notify('${KEYS_CHANGED_CHANNEL}_' || current_schema(), '')`);
}

/** The ApiKeyRepository on a SqlDatabase (SQLite or PostgreSQL); run migrations first. */
export function createKeysRepository(db: SqlDatabase): ApiKeyRepository {
  const findById = async (id: string) => {
    const rows = await db.query(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return rows[0] ? rowToKey(rows[0]) : null;
  };

  return {
    async create(key: NewApiKey) {
      await db.transaction(async (tx) => {
        await tx.execute(
          `INSERT INTO api_keys (id, key_hash, key_prefix, name, tier, active, allowed_origins, created_at, last_used_at, revoked_at)
           VALUES ($1, $2, $3, $4, $5, 1, $6, $7, NULL, NULL)`,
          [key.id, key.keyHash, key.keyPrefix, key.name, key.tier, key.allowedOrigins ? JSON.stringify(key.allowedOrigins) : null, key.createdAt],
        );
        await bumpRevision(tx, db.dialect);
      });
      const created = await findById(key.id);
      if (!created) throw new Error(`api key ${key.id} vanished after insert`);
      return created;
    },

    findById,

    async findByHash(keyHash: string) {
      const rows = await db.query(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1`, [keyHash]);
      return rows[0] ? rowToKey(rows[0]) : null;
    },

    async list() {
      const rows = await db.query(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`);
      return rows.map(rowToKey);
    },

    async revoke(id: string, atMs: number) {
      await db.transaction(async (tx) => {
        await tx.execute('UPDATE api_keys SET active = 0, revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [id, atMs]);
        await bumpRevision(tx, db.dialect);
      });
      return findById(id);
    },

    async update(id, changes) {
      await db.transaction(async (tx) => {
        if (changes.tier !== undefined) await tx.execute('UPDATE api_keys SET tier = $2 WHERE id = $1', [id, changes.tier]);
        if (changes.active !== undefined) {
          await tx.execute(
            changes.active
              ? 'UPDATE api_keys SET active = 1, revoked_at = NULL WHERE id = $1'
              : 'UPDATE api_keys SET active = 0 WHERE id = $1',
            [id],
          );
        }
        await bumpRevision(tx, db.dialect);
      });
      return findById(id);
    },

    async revision() {
      const rows = await db.query('SELECT revision FROM api_keys_revision WHERE id = 1');
      return rows[0] ? toNumber(rows[0].revision) : 0;
    },

    async markUsed(entries) {
      if (entries.length === 0) return;
      await db.transaction(async (tx) => {
        for (const { id, atMs } of entries) {
          await tx.execute('UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [id, atMs]);
        }
      });
    },

    async addUsage(deltas) {
      if (deltas.length === 0) return;
      await db.transaction(async (tx) => {
        for (const d of deltas) {
          await tx.execute(
            `INSERT INTO api_key_usage (key_id, day, method, requests, compute_units) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (key_id, day, method) DO UPDATE SET
               requests = api_key_usage.requests + excluded.requests,
               compute_units = api_key_usage.compute_units + excluded.compute_units`,
            [d.keyId, d.day, d.method, d.requests, d.computeUnits],
          );
        }
      });
    },

    async usage(keyId, fromDay, toDay): Promise<ApiKeyUsageRow[]> {
      const rows = await db.query(
        `SELECT day, method, requests, compute_units FROM api_key_usage
         WHERE key_id = $1 AND day >= $2 AND day <= $3 ORDER BY day, method`,
        [keyId, fromDay, toDay],
      );
      return rows.map((r) => ({
        day: String(r.day),
        method: String(r.method),
        requests: toNumber(r.requests),
        computeUnits: toNumber(r.compute_units),
      }));
    },

    async ping() {
      await db.query('SELECT 1 AS ok');
    },
  };
}
