// Webhook records and their filters (addresses, NFT filters) in the service store. Portable SQL
// only; the API layer validates input before it gets here.
import type { SqlDatabase, SqlExecutor, SqlRow, SqlValue } from '../../store/sql.js';
import { toNumber } from '../../store/sql.js';
import { InvalidParamsError } from '../../rpc/errors.js';
import type { NewWebhook, NftFilter, PausedReason, WebhookRecord, WebhookType } from './webhookTypes.js';
import { createTimeSlicer, sortInSlices, type TimeSlicer } from './timeSlicer.js';

export interface Page<T> {
  items: T[];
  totalCount: number;
  /** Cursor of the next page; null on the last page. */
  after: string | null;
}

export interface PageRequest {
  limit: number;
  after?: string | null;
}

/** Columns a caller may change; `undefined` leaves a column as it is. */
export interface WebhookChanges {
  name?: string | null;
  url?: string;
  isActive?: boolean;
  pausedAt?: number | null;
  pausedReason?: PausedReason | null;
  /** Cleared whenever `pausedAt` is set to null (a resume), unless given. */
  pausedDetail?: string | null;
  failingSince?: number | null;
}

export interface WebhookRepository {
  /** Inserts the webhook and its filters; returns null (nothing written) when `maxWebhooks` are already stored. */
  /** `withinTransaction` runs in the creating transaction (e.g. to request a backfill atomically). */
  create(webhook: NewWebhook, maxWebhooks: number, withinTransaction?: (tx: SqlExecutor, created: WebhookRecord) => Promise<void>): Promise<WebhookRecord | null>;
  get(id: string): Promise<WebhookRecord | null>;
  /** All webhooks, oldest first. */
  list(): Promise<WebhookRecord[]>;
  update(id: string, changes: WebhookChanges, nowMs: number): Promise<WebhookRecord | null>;
  /** Deletes the webhook with its filters, events, deliveries and attempt log. */
  delete(id: string): Promise<boolean>;
  /** Makes `newKey` current; the old key keeps signing until `previousKeyExpiresAt`. */
  rotateSigningKey(id: string, newKey: string, previousKeyExpiresAt: number, nowMs: number): Promise<WebhookRecord | null>;
  /**
   * Adds then removes addresses (stored lowercase); `replace` first clears the list. Returns the new
   * count, or null for an unknown webhook; throws InvalidParamsError (nothing written) past `maxCount`.
   */
  updateAddresses(id: string, change: { add: readonly string[]; remove: readonly string[]; replace?: boolean }, maxCount: number): Promise<number | null>;
  listAddresses(id: string, page: PageRequest): Promise<Page<string>>;
  /** Like updateAddresses, for NFT filters (contract lowercase, token id decimal or null). */
  updateNftFilters(id: string, change: { add: readonly NftFilter[]; remove: readonly NftFilter[] }, maxCount: number): Promise<number | null>;
  listNftFilters(id: string, page: PageRequest): Promise<Page<NftFilter>>;
}

const CHUNK_ROWS = 400;
/** Rows one slice of a whole-list delete removes. */
const DELETE_ROWS = 2000;

interface WebhookRow extends SqlRow {
  id: string;
  network: string;
  type: string;
  url: string;
  name: string | null;
  app_id: string | null;
  is_active: unknown;
  paused_at: unknown;
  paused_reason: string | null;
  paused_detail: string | null;
  signing_key: string;
  previous_signing_key: string | null;
  previous_key_expires_at: unknown;
  graphql_query: string | null;
  skip_empty_messages: unknown;
  failing_since: unknown;
  created_at: unknown;
  updated_at: unknown;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : toNumber(v));

export function rowToWebhook(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    network: row.network,
    type: row.type as WebhookType,
    url: row.url,
    name: row.name,
    appId: row.app_id,
    isActive: toNumber(row.is_active) === 1,
    pausedAt: nullableNumber(row.paused_at),
    pausedReason: (row.paused_reason as PausedReason | null) ?? null,
    pausedDetail: row.paused_detail ?? null,
    signingKey: row.signing_key,
    previousSigningKey: row.previous_signing_key,
    previousKeyExpiresAt: nullableNumber(row.previous_key_expires_at),
    graphqlQuery: row.graphql_query,
    skipEmptyMessages: toNumber(row.skip_empty_messages) === 1,
    failingSince: nullableNumber(row.failing_since),
    createdAt: toNumber(row.created_at),
    updatedAt: toNumber(row.updated_at),
  };
}

export const WEBHOOK_COLUMNS =
  'id, network, type, url, name, app_id, is_active, paused_at, paused_reason, signing_key, previous_signing_key, ' +
  'previous_key_expires_at, graphql_query, skip_empty_messages, failing_since, created_at, updated_at, paused_detail';

/**
 * Runs one multi-row statement per chunk: `head` + `(…), (…)` + `tail`. Between chunks the event loop
 * gets a turn when the slice is used up (SQLite statements are synchronous): the transaction stays
 * one, so the write is still all or nothing, but 100,000 rows no longer hold every other client.
 */
async function insertRows(tx: SqlExecutor, head: string, tail: string, rows: readonly SqlValue[][], slicer: TimeSlicer): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
    const chunk = rows.slice(i, i + CHUNK_ROWS);
    const params: SqlValue[] = [];
    const tuples = chunk.map((row) => `(${row.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`);
    await tx.execute(`${head} ${tuples.join(', ')} ${tail}`, params);
    await slicer.maybeYield();
  }
}

const nftKey = (f: NftFilter): [string, string] => [f.contractAddress.toLowerCase(), f.tokenId ?? ''];

export function createWebhookRepository(db: SqlDatabase): WebhookRepository {
  const get = async (ex: SqlExecutor, id: string) => {
    const rows = await ex.query<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
    return rows[0] ? rowToWebhook(rows[0]) : null;
  };
  const requireExists = async (tx: SqlExecutor, id: string) => {
    const rows = await tx.query('SELECT id FROM webhooks WHERE id = $1', [id]);
    return rows.length > 0;
  };

  async function writeAddresses(tx: SqlExecutor, id: string, add: readonly string[], remove: readonly string[]) {
    const slicer = createTimeSlicer();
    // Sorted inserts keep the (webhook_id, address) index appends local: ~25x faster for 1M addresses.
    const unique = await sortInSlices([...new Set(add.map((a) => a.toLowerCase()))], slicer);
    await insertRows(tx, 'INSERT INTO webhook_addresses (webhook_id, address) VALUES', 'ON CONFLICT DO NOTHING', unique.map((a) => [id, a]), slicer);
    const gone = [...new Set(remove.map((a) => a.toLowerCase()))];
    for (let i = 0; i < gone.length; i += CHUNK_ROWS) {
      const chunk = gone.slice(i, i + CHUNK_ROWS);
      await tx.execute(
        `DELETE FROM webhook_addresses WHERE webhook_id = $1 AND address IN (${chunk.map((_, j) => `$${j + 2}`).join(', ')})`,
        [id, ...chunk],
      );
      await slicer.maybeYield();
    }
  }

  /** Deletes every address of `id` in slices of DELETE_ROWS, giving the event loop turns in between. */
  async function clearAddresses(tx: SqlExecutor, id: string) {
    const slicer = createTimeSlicer();
    const sql = `DELETE FROM webhook_addresses WHERE webhook_id = $1 AND address IN
      (SELECT address FROM webhook_addresses WHERE webhook_id = $1 ORDER BY address LIMIT ${DELETE_ROWS})`;
    while ((await tx.execute(sql, [id])) === DELETE_ROWS) await slicer.maybeYield();
  }

  async function writeNftFilters(tx: SqlExecutor, id: string, add: readonly NftFilter[], remove: readonly NftFilter[]) {
    const rows = [...new Map(add.map((f) => [nftKey(f).join(':'), nftKey(f)])).values()];
    await insertRows(tx, 'INSERT INTO webhook_nft_filters (webhook_id, contract_address, token_id) VALUES', 'ON CONFLICT DO NOTHING', rows.map(([c, t]) => [id, c, t]), createTimeSlicer());
    for (const f of remove) {
      const [c, t] = nftKey(f);
      await tx.execute('DELETE FROM webhook_nft_filters WHERE webhook_id = $1 AND contract_address = $2 AND token_id = $3', [id, c, t]);
    }
  }

  const countOf = async (tx: SqlExecutor, table: string, id: string) =>
    toNumber((await tx.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${table} WHERE webhook_id = $1`, [id]))[0]!.n);

  return {
    create: (w, maxWebhooks, withinTransaction) =>
      db.transaction(async (tx) => {
        if (Number.isFinite(maxWebhooks)) {
          // Creates count and insert one at a time: SQLite's single writer does it; on PostgreSQL,
          // where another process may create at the same moment, a transaction-scoped lock does.
          if (db.dialect === 'postgres') await tx.query("SELECT pg_advisory_xact_lock(hashtext('tracehook:webhook-create:' || current_schema()))");
          const n = toNumber((await tx.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM webhooks'))[0]!.n);
          if (n >= maxWebhooks) return null;
        }
        await tx.execute(
          `INSERT INTO webhooks (${WEBHOOK_COLUMNS}, last_event_seq, first_done_seq)
           VALUES ($1, $2, $3, $4, $5, $6, 1, NULL, NULL, $7, NULL, NULL, $8, $9, NULL, $10, $10, NULL, 0, 0)`,
          [w.id, w.network, w.type, w.url, w.name, w.appId, w.signingKey, w.graphqlQuery, w.skipEmptyMessages ? 1 : 0, w.createdAt],
        );
        await writeAddresses(tx, w.id, w.addresses, []);
        await writeNftFilters(tx, w.id, w.nftFilters, []);
        const created = await get(tx, w.id);
        if (created && withinTransaction) await withinTransaction(tx, created);
        return created;
      }),

    get: (id) => get(db, id),

    async list() {
      const rows = await db.query<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, id`);
      return rows.map(rowToWebhook);
    },

    async update(id, changes, nowMs) {
      const sets: string[] = [];
      const params: SqlValue[] = [id];
      const set = (column: string, value: SqlValue) => {
        params.push(value);
        sets.push(`${column} = $${params.length}`);
      };
      if (changes.name !== undefined) set('name', changes.name);
      if (changes.url !== undefined) set('url', changes.url);
      if (changes.isActive !== undefined) set('is_active', changes.isActive ? 1 : 0);
      if (changes.pausedAt !== undefined) set('paused_at', changes.pausedAt);
      if (changes.pausedReason !== undefined) set('paused_reason', changes.pausedReason);
      const detail = changes.pausedDetail !== undefined ? changes.pausedDetail : changes.pausedAt === null ? null : undefined;
      if (detail !== undefined) set('paused_detail', detail);
      if (changes.failingSince !== undefined) set('failing_since', changes.failingSince);
      set('updated_at', nowMs);
      const n = await db.execute(`UPDATE webhooks SET ${sets.join(', ')} WHERE id = $1`, params);
      return n === 0 ? null : get(db, id);
    },

    async delete(id) {
      return db.transaction(async (tx) => (await tx.execute('DELETE FROM webhooks WHERE id = $1', [id])) > 0);
    },

    async rotateSigningKey(id, newKey, previousKeyExpiresAt, nowMs) {
      // Right-hand sides read the old row, so the old current key becomes the previous one.
      const n = await db.execute(
        `UPDATE webhooks SET previous_signing_key = signing_key, signing_key = $2, previous_key_expires_at = $3, updated_at = $4
         WHERE id = $1`,
        [id, newKey, previousKeyExpiresAt, nowMs],
      );
      return n === 0 ? null : get(db, id);
    },

    updateAddresses: (id, change, maxCount) =>
      db.transaction(async (tx) => {
        if (!(await requireExists(tx, id))) return null;
        if (change.replace) await clearAddresses(tx, id);
        await writeAddresses(tx, id, change.add, change.remove);
        const total = await countOf(tx, 'webhook_addresses', id);
        if (total > maxCount) {
          throw new InvalidParamsError(`addresses: a webhook tracks at most ${maxCount} addresses (this change would make ${total})`, { httpStatus: 400 });
        }
        return total;
      }),

    async listAddresses(id, page) {
      const after = page.after ?? '';
      const rows = await db.query<{ address: string }>(
        'SELECT address FROM webhook_addresses WHERE webhook_id = $1 AND address > $2 ORDER BY address LIMIT $3',
        [id, after, page.limit + 1],
      );
      const items = rows.slice(0, page.limit).map((r) => r.address);
      return { items, totalCount: await countOf(db, 'webhook_addresses', id), after: rows.length > page.limit ? items[items.length - 1]! : null };
    },

    updateNftFilters: (id, change, maxCount) =>
      db.transaction(async (tx) => {
        if (!(await requireExists(tx, id))) return null;
        await writeNftFilters(tx, id, change.add, change.remove);
        const total = await countOf(tx, 'webhook_nft_filters', id);
        if (total > maxCount) {
          throw new InvalidParamsError(`nft_filters: a webhook holds at most ${maxCount} NFT filters (this change would make ${total})`, { httpStatus: 400 });
        }
        return total;
      }),

    async listNftFilters(id, page) {
      const [c, t] = (page.after ?? ':').split(':') as [string, string];
      const rows = await db.query<{ contract_address: string; token_id: string }>(
        `SELECT contract_address, token_id FROM webhook_nft_filters
         WHERE webhook_id = $1 AND (contract_address > $2 OR (contract_address = $2 AND token_id > $3))
         ORDER BY contract_address, token_id LIMIT $4`,
        [id, c, t ?? '', page.limit + 1],
      );
      const items = rows.slice(0, page.limit).map((r) => ({ contractAddress: r.contract_address, tokenId: r.token_id === '' ? null : r.token_id }));
      const last = rows.length > page.limit ? rows[page.limit - 1]! : null;
      return { items, totalCount: await countOf(db, 'webhook_nft_filters', id), after: last ? `${last.contract_address}:${last.token_id}` : null };
    },
  };
}
