// The follower's own rows (migration 003_follower): cursor, processed blocks, what was sent per
// block, per-webhook sequence and backfill state, token metadata. Every write takes the caller's
// executor so it joins the transaction that appends the events.
import type { Hex } from '../../rpc/hex.js';
import { toNumber, type SqlExecutor } from '../../store/sql.js';
import type { WebhookType } from '../webhooks/webhookTypes.js';
import type { TokenMetadata, TokenMetadataStore } from '../extract/tokenMetadata.js';
import { ServiceError } from '../../rpc/errors.js';

/** A block by number and hash. */
export interface BlockRef {
  number: bigint;
  hash: Hex;
}

/** Thrown when the stored cursor moved under us (another follower process on the same network). */
export class CursorConflictError extends ServiceError {
  constructor(network: string) {
    super(`follower cursor of ${network} was moved by another process`);
  }
}

const big = (v: unknown): bigint => BigInt(typeof v === 'bigint' ? v : String(v));

export async function readCursor(ex: SqlExecutor, network: string): Promise<BlockRef | null> {
  const rows = await ex.query<{ block_number: unknown; block_hash: string }>('SELECT block_number, block_hash FROM follower_cursors WHERE network = $1', [network]);
  return rows[0] ? { number: big(rows[0].block_number), hash: rows[0].block_hash as Hex } : null;
}

/** Creates the cursor if the network has none; returns the stored one either way. */
export async function initCursor(ex: SqlExecutor, network: string, at: BlockRef, nowMs: number): Promise<BlockRef> {
  await ex.execute('INSERT INTO follower_cursors (network, block_number, block_hash, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT (network) DO NOTHING', [
    network,
    at.number,
    at.hash,
    nowMs,
  ]);
  return (await readCursor(ex, network))!;
}

/** Throws CursorConflictError unless the stored cursor is `expected` (guards writes of a second process). */
export async function assertCursor(ex: SqlExecutor, network: string, expected: BlockRef): Promise<void> {
  const stored = await readCursor(ex, network);
  if (!stored || stored.number !== expected.number || stored.hash !== expected.hash) throw new CursorConflictError(network);
}

/** Moves the cursor from `from` to `to`; throws CursorConflictError when `from` is no longer stored. */
export async function moveCursor(ex: SqlExecutor, network: string, from: BlockRef, to: BlockRef, nowMs: number): Promise<void> {
  const n = await ex.execute(
    'UPDATE follower_cursors SET block_number = $2, block_hash = $3, updated_at = $4 WHERE network = $1 AND block_number = $5 AND block_hash = $6',
    [network, to.number, to.hash, nowMs, from.number, from.hash],
  );
  if (n !== 1) throw new CursorConflictError(network);
}

export async function recordBlock(ex: SqlExecutor, network: string, block: BlockRef): Promise<void> {
  await ex.execute('INSERT INTO follower_blocks (network, block_number, block_hash) VALUES ($1, $2, $3)', [network, block.number, block.hash]);
}

/** The hash this follower processed at `number`, if still retained. */
export async function processedHash(ex: SqlExecutor, network: string, number: bigint): Promise<Hex | undefined> {
  const rows = await ex.query<{ block_hash: string }>('SELECT block_hash FROM follower_blocks WHERE network = $1 AND block_number = $2', [network, number]);
  return rows[0]?.block_hash as Hex | undefined;
}

/** One webhook's event for one block, as sent. */
export interface SentEvent {
  blockNumber: bigint;
  blockHash: Hex;
  webhookId: string;
  type: WebhookType;
  /** The `event` object of the notification (JSON text). */
  event: string;
}

export async function recordSent(ex: SqlExecutor, network: string, sent: SentEvent): Promise<void> {
  // A replay of history may send a block again; the latest copy is what a reorg retracts.
  await ex.execute(
    `INSERT INTO follower_deliveries (network, block_number, block_hash, webhook_id, type, event) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (network, block_hash, webhook_id) DO UPDATE SET event = excluded.event, type = excluded.type`,
    [network, sent.blockNumber, sent.blockHash, sent.webhookId, sent.type, sent.event],
  );
}

/** Events sent for blocks above `number`, newest block first (the order retractions go out). */
export async function sentAbove(ex: SqlExecutor, network: string, number: bigint): Promise<SentEvent[]> {
  const rows = await ex.query<{ block_number: unknown; block_hash: string; webhook_id: string; type: string; event: string }>(
    `SELECT block_number, block_hash, webhook_id, type, event FROM follower_deliveries
     WHERE network = $1 AND block_number > $2 ORDER BY block_number DESC, webhook_id`,
    [network, number],
  );
  return rows.map((r) => ({ blockNumber: big(r.block_number), blockHash: r.block_hash as Hex, webhookId: r.webhook_id, type: r.type as WebhookType, event: r.event }));
}

/** Forgets processed blocks and sent events above `number` (after a rollback). */
export async function forgetAbove(ex: SqlExecutor, network: string, number: bigint): Promise<void> {
  await ex.execute('DELETE FROM follower_blocks WHERE network = $1 AND block_number > $2', [network, number]);
  await ex.execute('DELETE FROM follower_deliveries WHERE network = $1 AND block_number > $2', [network, number]);
}

/** Drops rows older than the reorg retention window (blocks at or below `number`). */
export async function pruneBelow(ex: SqlExecutor, network: string, number: bigint): Promise<void> {
  await ex.execute('DELETE FROM follower_blocks WHERE network = $1 AND block_number <= $2', [network, number]);
  await ex.execute('DELETE FROM follower_deliveries WHERE network = $1 AND block_number <= $2', [network, number]);
}

/** Next Custom-webhook sequence number of `webhookId` (1, 2, …), reserved in the caller's transaction. */
export async function nextSequence(ex: SqlExecutor, network: string, webhookId: string, nowMs: number): Promise<bigint> {
  await ex.execute(
    `INSERT INTO follower_webhooks (webhook_id, network, graphql_sequence, updated_at) VALUES ($1, $2, 1, $3)
     ON CONFLICT (webhook_id) DO UPDATE SET graphql_sequence = follower_webhooks.graphql_sequence + 1, updated_at = $3`,
    [webhookId, network, nowMs],
  );
  const rows = await ex.query<{ s: unknown }>('SELECT graphql_sequence AS s FROM follower_webhooks WHERE webhook_id = $1', [webhookId]);
  return big(rows[0]!.s);
}

/**
 * Asks the follower to re-run a webhook's filter from `fromBlock` (creation with `from_block`, or a
 * replay). Call it in the transaction that creates or updates the webhook; the follower picks it up
 * at its next block: history `fromBlock`…(that block) is sent in order, then live blocks resume.
 */
export async function requestBackfill(ex: SqlExecutor, request: { webhookId: string; network: string; fromBlock: bigint; nowMs: number }): Promise<void> {
  await ex.execute(
    `INSERT INTO follower_webhooks (webhook_id, network, graphql_sequence, replay_from, updated_at) VALUES ($1, $2, 0, $3, $4)
     ON CONFLICT (webhook_id) DO UPDATE SET replay_from = $3, updated_at = $4`,
    [request.webhookId, request.network, request.fromBlock, request.nowMs],
  );
}

export interface BackfillState {
  webhookId: string;
  next: bigint;
  end: bigint;
}

/**
 * At live block `number`: turns replay requests into backfill ranges ending at `number`, and
 * extends every running range to `number`. Returns the webhooks that are backfilling (they get no
 * live notification for `number`; the backfill sends it in order).
 */
export async function extendBackfills(ex: SqlExecutor, network: string, number: bigint, nowMs: number): Promise<Set<string>> {
  await ex.execute(
    `UPDATE follower_webhooks SET backfill_next = CASE WHEN backfill_next IS NOT NULL AND backfill_next < replay_from THEN backfill_next ELSE replay_from END,
       replay_from = NULL, updated_at = $3
     WHERE network = $1 AND replay_from IS NOT NULL AND replay_from <= $2`,
    [network, number, nowMs],
  );
  // A from_block in the future is simply live delivery from there on.
  await ex.execute('UPDATE follower_webhooks SET replay_from = NULL WHERE network = $1 AND replay_from > $2', [network, number]);
  await ex.execute('UPDATE follower_webhooks SET backfill_end = $2 WHERE network = $1 AND backfill_next IS NOT NULL', [network, number]);
  const rows = await ex.query<{ webhook_id: string }>('SELECT webhook_id FROM follower_webhooks WHERE network = $1 AND backfill_next IS NOT NULL', [network]);
  return new Set(rows.map((r) => r.webhook_id));
}

/**
 * Webhooks that will be backfilling when block `number` is processed (what extendBackfills will
 * return), read before the block's transaction to know whose Custom queries to run.
 */
export async function backfillingAt(ex: SqlExecutor, network: string, number: bigint): Promise<Set<string>> {
  const rows = await ex.query<{ webhook_id: string }>(
    'SELECT webhook_id FROM follower_webhooks WHERE network = $1 AND (backfill_next IS NOT NULL OR (replay_from IS NOT NULL AND replay_from <= $2))',
    [network, number],
  );
  return new Set(rows.map((r) => r.webhook_id));
}

/** The earliest pending backfill block and the webhooks waiting for it; null when none. */
export async function nextBackfill(ex: SqlExecutor, network: string): Promise<{ number: bigint; webhookIds: string[] } | null> {
  const rows = await ex.query<{ webhook_id: string; backfill_next: unknown }>(
    `SELECT webhook_id, backfill_next FROM follower_webhooks
     WHERE network = $1 AND backfill_next IS NOT NULL AND backfill_next <= backfill_end ORDER BY backfill_next, webhook_id`,
    [network],
  );
  if (!rows.length) return null;
  const number = big(rows[0]!.backfill_next);
  return { number, webhookIds: rows.filter((r) => big(r.backfill_next) === number).map((r) => r.webhook_id) };
}

/** Marks `number` done for `webhookIds`; ranges that reach their end close (live delivery resumes). */
export async function advanceBackfill(ex: SqlExecutor, webhookIds: readonly string[], number: bigint, nowMs: number): Promise<void> {
  for (const id of webhookIds) {
    await ex.execute('UPDATE follower_webhooks SET backfill_next = $3, updated_at = $4 WHERE webhook_id = $1 AND backfill_next = $2 AND backfill_end > $2', [
      id,
      number,
      number + 1n,
      nowMs,
    ]);
    await ex.execute(
      'UPDATE follower_webhooks SET backfill_next = NULL, backfill_end = NULL, updated_at = $3 WHERE webhook_id = $1 AND backfill_next = $2 AND backfill_end <= $2',
      [id, number, nowMs],
    );
  }
}

/** After a rollback to `ancestor`: ranges stop there, and history above it is run again if needed. */
export async function clampBackfills(ex: SqlExecutor, network: string, ancestor: bigint): Promise<void> {
  await ex.execute('UPDATE follower_webhooks SET backfill_end = $2 WHERE network = $1 AND backfill_end > $2', [network, ancestor]);
  await ex.execute('UPDATE follower_webhooks SET backfill_next = $2 WHERE network = $1 AND backfill_next > $2', [network, ancestor + 1n]);
  await ex.execute('UPDATE follower_webhooks SET backfill_next = NULL, backfill_end = NULL WHERE network = $1 AND backfill_next > backfill_end', [network]);
}

/** Token metadata persisted per network (decimals stored as -1 when absent). */
export function createSqlTokenMetadataStore(ex: SqlExecutor, network: string): TokenMetadataStore {
  return {
    async load(contracts) {
      const out = new Map<Hex, TokenMetadata>();
      for (let i = 0; i < contracts.length; i += 400) {
        const chunk = contracts.slice(i, i + 400);
        const rows = await ex.query<{ address: string; symbol: string | null; decimals: unknown }>(
          `SELECT address, symbol, decimals FROM follower_tokens WHERE network = $1 AND address IN (${chunk.map((_, j) => `$${j + 2}`).join(', ')})`,
          [network, ...chunk],
        );
        for (const r of rows) {
          const decimals = toNumber(r.decimals);
          out.set(r.address as Hex, { symbol: r.symbol, decimals: decimals < 0 ? null : decimals });
        }
      }
      return out;
    },
    async save(contract, metadata) {
      await ex.execute('INSERT INTO follower_tokens (network, address, symbol, decimals) VALUES ($1, $2, $3, $4) ON CONFLICT (network, address) DO NOTHING', [
        network,
        contract,
        metadata.symbol,
        metadata.decimals ?? -1,
      ]);
    },
  };
}

/**
 * Whether no webhook can want a block of `network` now: none is active there, and none has a
 * backfill requested or running (so a new block needs nothing but the cursor moved).
 */
export async function isQuiet(ex: SqlExecutor, network: string): Promise<boolean> {
  const active = await ex.query('SELECT 1 AS one FROM webhooks WHERE network = $1 AND is_active = 1 LIMIT 1', [network]);
  if (active.length > 0) return false;
  const backfills = await ex.query('SELECT 1 AS one FROM follower_webhooks WHERE network = $1 AND (replay_from IS NOT NULL OR backfill_next IS NOT NULL) LIMIT 1', [network]);
  return backfills.length === 0;
}

/** Whether any webhook of `network` has a backfill request the follower has not taken up. */
export async function hasBackfillRequests(ex: SqlExecutor, network: string): Promise<boolean> {
  const rows = await ex.query('SELECT 1 AS one FROM follower_webhooks WHERE network = $1 AND replay_from IS NOT NULL LIMIT 1', [network]);
  return rows.length > 0;
}

/** A webhook's backfill as the API reports it: a pending request, the range still to run, or none. */
export interface BackfillProgress {
  /** `from_block` of a request the follower has not taken up yet. */
  requestedFrom: bigint | null;
  /** Next block of the running range, and its last block (inclusive). */
  next: bigint | null;
  end: bigint | null;
}

export async function readBackfillProgress(ex: SqlExecutor, webhookId: string): Promise<BackfillProgress> {
  const rows = await ex.query<{ replay_from: unknown; backfill_next: unknown; backfill_end: unknown }>(
    'SELECT replay_from, backfill_next, backfill_end FROM follower_webhooks WHERE webhook_id = $1',
    [webhookId],
  );
  const row = rows[0];
  const opt = (v: unknown) => (v === null || v === undefined ? null : big(v));
  return { requestedFrom: opt(row?.replay_from), next: opt(row?.backfill_next), end: opt(row?.backfill_end) };
}
