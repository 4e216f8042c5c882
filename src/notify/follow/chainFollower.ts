// The chain follower of one network: walks canonical blocks from its stored cursor, detects reorgs
// by parent hash (rolling back to the common ancestor and retracting what was sent for the dropped
// blocks), and writes each block's events, the sent-event record and the new cursor in one store
// transaction, so a restart resumes with no gap and no repeated first-time notification. Custom
// webhook queries run in a worker, within budget, before that transaction opens.
import type { Hex } from '../../rpc/hex.js';
import type { SqlDatabase, SqlExecutor } from '../../store/sql.js';
import { systemClock, type Clock } from '../clock.js';
import { createTimeSlicer } from '../webhooks/timeSlicer.js';
import { silentLogger, type NotifyLogger } from '../notifyLogger.js';
import type { AppendedEvent, OutboxEvent } from '../outbox/appendEvents.js';
import type { BlockData } from '../extract/blockData.js';
import { blockDataProblem } from '../extract/blockData.js';
import { extractTransfers } from '../extract/transfers.js';
import { createCallTokenMetadataSource, createTokenMetadataCache, type TokenMetadataCache } from '../extract/tokenMetadata.js';
import type { BlockHeaderRef, BlockSource } from './blockSource.js';
import { buildBlockEvents, removalEvent, tokenContracts, type WebhookEvent } from './blockEvents.js';
import { createAncestorLoader, createBlockQueries, createCustomQueryCache, customWebhooks, type BlockQueries } from './customQueryEvents.js';
import { createCustomQueryRunner, type QueryBudget } from '../graphql/customQueryRunner.js';
import * as store from './followerStore.js';
import { createBackfillProgressLog } from './backfillProgress.js';
import { CursorConflictError, type BlockRef } from './followerStore.js';

/** Longest run of catch-up work between two turns of the event loop. */
const CATCH_UP_SLICE_MS = 5;

/** The outbox surface the follower writes to (a Notifier satisfies it). */
export interface FollowerOutbox {
  appendEvents(tx: SqlExecutor, events: readonly OutboxEvent[]): Promise<AppendedEvent[]>;
  /** Tells the delivery workers new rows are due (called after each commit). */
  wake(): void;
}

export interface ChainFollowerOptions {
  /** Network name as webhooks store it (hosted-provider spelling, e.g. `ETH_MAINNET`). */
  network: string;
  db: SqlDatabase;
  source: BlockSource;
  outbox: FollowerOutbox;
  /** Blocks to stay behind the head (0 on the dev chain: notify as soon as a block is mined). */
  confirmations?: number;
  /** First run only: start after the current head (default) or at this block number. */
  startAt?: 'head' | bigint;
  /** Processed blocks remembered for reorg detection and retraction. Default 256. */
  retainBlocks?: number;
  /** Poll interval when the source cannot push heads (and as a safety net when it can). Default 1000. */
  pollIntervalMs?: number;
  /** Native coin symbol and decimals for ETH activity. Default ETH, 18. */
  nativeAsset?: string;
  nativeDecimals?: number;
  /** Token metadata cache; default reads through `source.call` and persists in follower_tokens. */
  tokenMetadata?: TokenMetadataCache;
  /** Budget of one Custom webhook query on one block (default DEFAULT_QUERY_BUDGET: 2 s, 1 MiB, 256 MiB heap). */
  customQueryBudget?: Partial<QueryBudget>;
  clock?: Clock;
  logger?: NotifyLogger;
}

/** What one `syncOnce` did. */
export interface SyncReport {
  /** Live blocks processed. */
  blocks: number;
  /** Rollbacks (reorgs) handled. */
  reorgs: number;
  /** Retraction notifications written. */
  retracted: number;
  /** Backfill blocks processed. */
  backfilled: number;
  /** Notifications written (live and backfill, retractions excluded). */
  events: number;
}

export interface ChainFollower {
  readonly network: string;
  /** Follows the chain in the background until stop(). */
  start(): void;
  /** Stops, waits for the block in progress to commit or roll back, and ends the Custom query worker. */
  stop(): Promise<void>;
  /** Processes everything available now (reorgs, new blocks, backfills); resolves when caught up. */
  syncOnce(): Promise<SyncReport>;
  /** Looks for work at once (e.g. a backfill was just requested) instead of at the next block or poll. */
  wake(): void;
  /** Last committed block, or null before the first sync. */
  cursor(): BlockRef | null;
  /** The source's head at the last look, or null before the first sync (cursor and head give the lag). */
  head(): BlockRef | null;
}

/** Hash of "the block before genesis": genesis's parentHash, so genesis extends it. */
const BEFORE_GENESIS: BlockRef = { number: -1n, hash: `0x${'00'.repeat(32)}` };
/** Pruning of retained rows runs every this many blocks (or every `retainBlocks`, if smaller). */
const PRUNE_EVERY = 64n;

export function createChainFollower(options: ChainFollowerOptions): ChainFollower {
  const { network, db, source, outbox } = options;
  const confirmations = BigInt(options.confirmations ?? 0);
  const retain = BigInt(Math.max(1, options.retainBlocks ?? 256));
  const pruneEvery = retain < PRUNE_EVERY ? retain : PRUNE_EVERY;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const nativeAsset = options.nativeAsset ?? 'ETH';
  const nativeDecimals = options.nativeDecimals ?? 18;
  const tokens = options.tokenMetadata ?? createTokenMetadataCache({ source: createCallTokenMetadataSource(source.call), store: store.createSqlTokenMetadataStore(db, network) });
  const queries = createCustomQueryCache();
  const runner = createCustomQueryRunner({ budget: options.customQueryBudget });
  const ancestors = createAncestorLoader((hash: Hex) => source.blockByHash(hash));
  const backfillLog = createBackfillProgressLog({ network, logger, now: () => clock.now() });
  let cursor: BlockRef | null = null;
  let lastHead: BlockRef | null = null;
  // Set by stop(): a long catch-up or backfill ends after the block in progress.
  let stopping = false;
  // The last block went by quietly (no webhook could want it).
  let wasQuiet = false;

  async function loadCursor(): Promise<BlockRef> {
    const stored = await store.readCursor(db, network);
    if (stored) return stored;
    const head = await source.head();
    let at = BEFORE_GENESIS;
    const start = options.startAt === undefined || options.startAt === 'head' ? head.number - confirmations : options.startAt - 1n;
    if (start >= 0n) at = { number: start, hash: (await source.canonicalHash(start))! };
    return db.transaction(async (tx) => {
      const created = await store.initCursor(tx, network, at, clock.now());
      if (created.number >= 0n && created.hash === at.hash && !(await store.processedHash(tx, network, at.number))) await store.recordBlock(tx, network, at);
      return created;
    });
  }

  /** Appends events and records what was appended (for retraction). Returns how many were written. */
  async function appendAndRecord(tx: SqlExecutor, block: BlockRef, events: WebhookEvent[]): Promise<number> {
    if (!events.length) return 0;
    const appended = new Set((await outbox.appendEvents(tx, events)).map((e) => e.webhookId));
    for (const e of events) {
      if (!appended.has(e.webhookId)) continue;
      await store.recordSent(tx, network, { blockNumber: block.number, blockHash: block.hash, webhookId: e.webhookId, type: e.type, event: JSON.stringify(e.event) });
    }
    return appended.size;
  }

  /** Inside a block's transaction: the cursor onto `ref`, its hash kept for reorgs, old hashes pruned now and then. */
  async function advanceCursor(tx: SqlExecutor, from: BlockRef, ref: BlockRef, nowMs: number): Promise<void> {
    await store.moveCursor(tx, network, from, ref, nowMs);
    await store.recordBlock(tx, network, ref);
    if (ref.number % pruneEvery === 0n) await store.pruneBelow(tx, network, ref.number - retain);
  }

  async function prepare(block: BlockData) {
    const problem = blockDataProblem(block);
    if (problem) throw new Error(`block source returned inconsistent data: ${problem}`);
    const ref: BlockRef = { number: BigInt(block.header.number), hash: block.header.hash.toLowerCase() as Hex };
    const transfers = extractTransfers(block);
    const tokenInfo = await tokens.resolve(tokenContracts(transfers), ref);
    return { ref, transfers, tokenInfo };
  }

  /** The block's Custom queries, run now for the webhooks expected to take part (before any transaction). */
  async function runCustomQueries(block: BlockData, include: (webhookId: string) => boolean): Promise<BlockQueries> {
    const runs = createBlockQueries({ block, runner, cache: queries, ancestors });
    await runs.prefetch(await customWebhooks(db, network, include));
    return runs;
  }

  async function processLive(from: BlockRef, block: BlockData): Promise<number> {
    const { ref, transfers, tokenInfo } = await prepare(block);
    const expectedBackfilling = await store.backfillingAt(db, network, ref.number);
    const custom = await runCustomQueries(block, (id) => !expectedBackfilling.has(id));
    const written = await db.transaction(async (tx) => {
      const now = clock.now();
      const backfilling = await store.extendBackfills(tx, network, ref.number, now);
      const events = await buildBlockEvents(tx, { network, block, transfers, tokens: tokenInfo, nativeAsset, nativeDecimals, include: (id) => !backfilling.has(id), queries: custom, nowMs: now, logger });
      const n = await appendAndRecord(tx, ref, events);
      await advanceCursor(tx, from, ref, now);
      return n;
    });
    cursor = ref;
    if (written) outbox.wake();
    return written;
  }

  /**
   * Moves the cursor onto `header` with nothing else to do, when no webhook can want the block:
   * no block data, token reads or queries. False when a webhook appeared meanwhile (the block then
   * goes the whole way), checked in the same transaction that moves the cursor.
   */
  async function passQuietly(from: BlockRef, header: BlockHeaderRef): Promise<boolean> {
    const ref: BlockRef = { number: header.number, hash: header.hash.toLowerCase() as Hex };
    const passed = await db.transaction(async (tx) => {
      if (!(await store.isQuiet(tx, network))) return false;
      await advanceCursor(tx, from, ref, clock.now());
      return true;
    });
    if (passed) cursor = ref;
    return passed;
  }

  /** Runs the earliest pending backfill block; false when there is none (or it must wait for a reorg check). */
  async function backfillStep(at: BlockRef, report: SyncReport): Promise<boolean> {
    const next = await store.nextBackfill(db, network);
    if (!next) return false;
    const block = await source.blockByNumber(next.number);
    const seen = await store.processedHash(db, network, next.number);
    if (!block || (seen && seen !== block.header.hash.toLowerCase())) return false;
    const { ref, transfers, tokenInfo } = await prepare(block);
    const ids = new Set(next.webhookIds);
    const custom = await runCustomQueries(block, (id) => ids.has(id));
    const written = await db.transaction(async (tx) => {
      await store.assertCursor(tx, network, at);
      const now = clock.now();
      const events = await buildBlockEvents(tx, { network, block, transfers, tokens: tokenInfo, nativeAsset, nativeDecimals, include: (id) => ids.has(id), queries: custom, nowMs: now, logger });
      const n = await appendAndRecord(tx, ref, events);
      await store.advanceBackfill(tx, next.webhookIds, next.number, now);
      return n;
    });
    await backfillLog.stepDone(db, next.webhookIds, next.number);
    report.backfilled++;
    report.events += written;
    if (written) outbox.wake();
    return true;
  }

  /** Finds the newest block this follower processed that is still canonical. */
  async function commonAncestor(from: BlockRef): Promise<BlockRef> {
    for (let n = from.number; n >= 0n; n--) {
      const ours = n === from.number ? from.hash : await store.processedHash(db, network, n);
      const canonical = await source.canonicalHash(n);
      if (ours === undefined) {
        // Deeper than the retention window: what was sent below it can no longer be retracted.
        logger.error({ network, block: n.toString(), retainBlocks: retain.toString() }, 'reorg deeper than the retention window; resuming from the canonical chain');
        return canonical ? { number: n, hash: canonical.toLowerCase() as Hex } : BEFORE_GENESIS;
      }
      if (canonical && canonical.toLowerCase() === ours) return { number: n, hash: ours };
    }
    return BEFORE_GENESIS;
  }

  async function rollback(from: BlockRef, report: SyncReport): Promise<void> {
    const ancestor = await commonAncestor(from);
    const retracted = await db.transaction(async (tx) => {
      const now = clock.now();
      const sent = await store.sentAbove(tx, network, ancestor.number);
      const events: WebhookEvent[] = [];
      for (const s of sent) events.push(await removalEvent(tx, network, s, now));
      if (events.length) await outbox.appendEvents(tx, events);
      await store.forgetAbove(tx, network, ancestor.number);
      await store.clampBackfills(tx, network, ancestor.number);
      await store.moveCursor(tx, network, from, ancestor, now);
      return events.length;
    });
    logger.info({ network, from: from.number.toString(), ancestor: ancestor.number.toString(), retracted }, 'chain reorganisation: rolled back to the common ancestor');
    cursor = ancestor;
    report.reorgs++;
    report.retracted += retracted;
    if (retracted) outbox.wake();
  }

  async function syncOnce(): Promise<SyncReport> {
    const report: SyncReport = { blocks: 0, reorgs: 0, retracted: 0, backfilled: 0, events: 0 };
    const slicer = createTimeSlicer(CATCH_UP_SLICE_MS);
    try {
      cursor ??= await loadCursor();
      for (;;) {
        if (stopping) return report;
        const at: BlockRef = cursor;
        const head = await source.head();
        lastHead = head;
        const target = head.number - confirmations;
        if (at.number >= target) {
          // Nothing new: the cursor may still have been rewound away (evm_revert with no new block).
          if (at.number >= 0n && (await source.canonicalHash(at.number))?.toLowerCase() !== at.hash) {
            await rollback(at, report);
            continue;
          }
          // Backfills requested since the last block start now, up to the cursor (no need to wait for a block).
          if (await store.hasBackfillRequests(db, network)) {
            await db.transaction(async (tx) => {
              await store.assertCursor(tx, network, at);
              await store.extendBackfills(tx, network, at.number, clock.now());
            });
          }
          if (await backfillStep(at, report)) continue;
          return report;
        }
        // After a quiet block the next is tried quietly at once (passQuietly checks again in its transaction).
        if (source.headerByNumber && (wasQuiet || (await store.isQuiet(db, network)))) {
          const header = await source.headerByNumber(at.number + 1n);
          // The head moved back between the two reads; the next round sorts it out.
          if (!header) return report;
          if (header.parentHash.toLowerCase() !== at.hash) {
            await rollback(at, report);
            continue;
          }
          wasQuiet = await passQuietly(at, header);
          if (wasQuiet) {
            report.blocks++;
            await slicer.maybeYield();
            continue;
          }
        }
        const block = await source.blockByNumber(at.number + 1n);
        // The head moved back between the two reads; the next round sorts it out.
        if (!block) return report;
        if (block.header.parentHash.toLowerCase() !== at.hash) {
          await rollback(at, report);
          continue;
        }
        report.events += await processLive(at, block);
        report.blocks++;
        // A catch-up over thousands of new blocks (anvil_mine) gives the loop back every few ms:
        // with a synchronous store every await above resolves without letting a request in.
        await slicer.maybeYield();
      }
    } catch (error) {
      // Another process moved the cursor: forget ours and start again from the stored one.
      if (error instanceof CursorConflictError) cursor = null;
      throw error;
    }
  }

  let running = false;
  let stopped = true;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let current: Promise<void> = Promise.resolve();
  const pollMs = options.pollIntervalMs ?? 1000;

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    clearTimeout(timer);
    current = (async () => {
      do {
        again = false;
        try {
          await syncOnce();
        } catch (error) {
          logger.error({ network, err: error }, 'chain follower step failed; retrying');
        }
      } while (again && !stopped);
      running = false;
      if (!stopped) timer = setTimeout(kick, pollMs);
    })();
  }

  return {
    network,
    start() {
      if (!stopped) return;
      stopped = false;
      stopping = false;
      unsubscribe = source.subscribe?.(kick);
      kick();
    },
    async stop() {
      stopped = true;
      stopping = true;
      clearTimeout(timer);
      unsubscribe?.();
      await current;
      await runner.close();
    },
    syncOnce,
    wake: kick,
    cursor: () => cursor,
    head: () => lastHead,
  };
}
