// SQLite tables of the dev chain's blocks: block bodies and receipts by hash, the canonical
// number→hash index, the transaction index, a log index for eth_getLogs, the state root a block was
// built on when dev setters made it differ from the parent's, the senders' public keys the miner
// recovered (so a block read back never recovers them again: about 300 µs per transaction, the
// largest single cost of a cold replay), and a small meta table (head, working state root).
// Callers group writes in one `db.transaction` with the trie flush, or record a mined block's writes
// for the chain's writer thread (chainWriter.ts).
import type { Database, Statement } from 'better-sqlite3';
import { type SqlWrites, directWrites } from '../../store/sqlite/sqlWrites.js';
import { type Block, type BlockHeader, createBlockFromRLP, createBlockHeaderFromBytesArray } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import type { Common } from '@ethereumjs/common';
import { equalsBytes } from '@ethereumjs/util';
import { flatHex } from '../state/flatHex.js';
import { createPreparedCommon } from './chainConfig.js';
import { createDecodedBlockCache } from './decodedBlockCache.js';
import { hasZeroSignature, restoreImpersonatedSenders } from './impersonatedTransaction.js';
import { type ReceiptRecord, bytesToReceiptRecords, receiptRecordsToBytes } from './receiptCodec.js';

/** Where a transaction sits on the canonical chain. */
export interface TxLocation {
  blockHash: Uint8Array;
  blockNumber: bigint;
  index: number;
}

/** A log position returned by {@link BlockStore.queryLogs}. */
export interface LogPosition {
  blockNumber: bigint;
  logIndex: number;
}

export interface LogQuery {
  fromBlock: bigint;
  toBlock: bigint;
  /** Any of these addresses; undefined = any address. */
  addresses?: Uint8Array[];
  /** Per position: undefined/null = any topic, else any of the listed topics. */
  topics: (Uint8Array[] | null)[];
}

export interface BlockStore {
  getMeta(key: string): Uint8Array | undefined;
  /** Writes now, or into `writes` (see putCanonicalBlock). */
  setMeta(key: string, value: Uint8Array, writes?: SqlWrites): void;
  canonicalHash(number: bigint): Uint8Array | undefined;
  getBlockByHash(hash: Uint8Array): Block | undefined;
  /** The header of a stored block, without decoding its transactions unless the block is decoded already. */
  getHeaderByHash(hash: Uint8Array): BlockHeader | undefined;
  getReceiptRecords(blockHash: Uint8Array): ReceiptRecord[] | undefined;
  getTxLocation(txHash: Uint8Array): TxLocation | undefined;
  /**
   * Stores a block with its receipts and makes it canonical at its number. `preStateRoot` is the
   * root the miner built it on; it is kept only when it differs from the parent's state root.
   * With `writes`, the rows go there (another connection writes them later): until
   * {@link BlockStore.written} or {@link BlockStore.unwritten} names the block, its transactions'
   * locations are kept in memory, and its decoded block and receipts stay in the caches as usual.
   */
  putCanonicalBlock(block: Block, receipts: readonly ReceiptRecord[], preStateRoot?: Uint8Array, writes?: SqlWrites): void;
  /** The rows of a block put with `writes` are in the database now. */
  written(block: Block): void;
  /** The rows of a block put with `writes` were not written: it leaves the caches too. */
  unwritten(block: Block): void;
  /**
   * State root `block` was built on: the stored one (dev setters ran after its parent), else its
   * parent's state root; undefined for a block whose parent is not stored (genesis).
   */
  preStateRoot(block: Block): Uint8Array | undefined;
  /** Removes canonical blocks above `number` (and their rows); returns them newest first. */
  removeCanonicalAbove(number: bigint): Block[];
  /** Highest canonical number, or -1n for an empty store. */
  highestCanonical(): bigint;
  queryLogs(query: LogQuery): LogPosition[];
}

export interface BlockStoreOptions {
  db: Database;
  common: Common;
  /** Budget of the decoded blocks kept in memory, estimated bytes (decodedBlockCache.ts); default 16 MiB. */
  cacheBytes?: number;
  /** Receipt records of the most recently stored blocks kept in memory; default 64. */
  cacheReceiptBlocks?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (hash BLOB PRIMARY KEY, number INTEGER NOT NULL, rlp BLOB NOT NULL, receipts BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS canonical (number INTEGER PRIMARY KEY, hash BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS transactions (hash BLOB PRIMARY KEY, block_number INTEGER NOT NULL, idx INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS transactions_block ON transactions (block_number);
CREATE TABLE IF NOT EXISTS logs (
  block_number INTEGER NOT NULL, log_index INTEGER NOT NULL, address BLOB NOT NULL,
  topic0 BLOB, topic1 BLOB, topic2 BLOB, topic3 BLOB,
  PRIMARY KEY (block_number, log_index)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS logs_address ON logs (address, block_number);
CREATE INDEX IF NOT EXISTS logs_topic0 ON logs (topic0, block_number);
CREATE TABLE IF NOT EXISTS pre_state_roots (hash BLOB PRIMARY KEY, root BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sender_keys (hash BLOB PRIMARY KEY, keys BLOB NOT NULL) WITHOUT ROWID;
`;

/** The writes of a stored block (run on this store's connection, or recorded for another). */
const WRITE = {
  meta: 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  block: 'INSERT OR REPLACE INTO blocks (hash, number, rlp, receipts) VALUES (?, ?, ?, ?)',
  canonical: 'INSERT OR REPLACE INTO canonical (number, hash) VALUES (?, ?)',
  tx: 'INSERT OR REPLACE INTO transactions (hash, block_number, idx) VALUES (?, ?, ?)',
  log: 'INSERT OR REPLACE INTO logs (block_number, log_index, address, topic0, topic1, topic2, topic3) VALUES (?, ?, ?, ?, ?, ?, ?)',
  preStateRoot: 'INSERT OR REPLACE INTO pre_state_roots (hash, root) VALUES (?, ?)',
  noPreStateRoot: 'DELETE FROM pre_state_roots WHERE hash = ?',
  senderKeys: 'INSERT OR REPLACE INTO sender_keys (hash, keys) VALUES (?, ?)',
} as const;

/** Bytes of an uncompressed secp256k1 public key without its prefix (ethereumjs's senderPubKey). */
const KEY_BYTES = 64;

/** number -> hash entries the writer keeps (about 150 bytes each). */
const CANONICAL_CACHE_ENTRIES = 1024;

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function fromBuffer(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * Creates the tables if needed (a data dir from an older version gets the ones it lacks) and
 * returns the store. A read-only connection relies on the writer having opened the data dir first.
 */
export function createBlockStore(options: BlockStoreOptions): BlockStore {
  const { db, common } = options;
  // Blocks are decoded with a Common that already holds the block and transaction parameters: a
  // header or transaction constructor otherwise merges them into its own copy each time (a tenth
  // of a cold replay's CPU went to decoding its block and parent).
  const decodeCommon = createPreparedCommon(common);
  db.exec(SCHEMA);
  const q = {
    getMeta: db.prepare('SELECT value FROM meta WHERE key = ?') as Statement<[string], { value: Buffer }>,
    canonical: db.prepare('SELECT hash FROM canonical WHERE number = ?') as Statement<[bigint], { hash: Buffer }>,
    highest: db.prepare('SELECT MAX(number) AS n FROM canonical') as Statement<[], { n: bigint | null }>,
    blockRlp: db.prepare('SELECT rlp FROM blocks WHERE hash = ?') as Statement<[Buffer], { rlp: Buffer }>,
    receipts: db.prepare('SELECT receipts FROM blocks WHERE hash = ?') as Statement<[Buffer], { receipts: Buffer }>,
    tx: db.prepare('SELECT c.hash AS block_hash, t.block_number, t.idx FROM transactions t JOIN canonical c ON c.number = t.block_number WHERE t.hash = ?') as Statement<
      [Buffer],
      { block_hash: Buffer; block_number: bigint; idx: number }
    >,
    canonicalAbove: db.prepare('SELECT hash FROM canonical WHERE number > ? ORDER BY number DESC') as Statement<[bigint], { hash: Buffer }>,
    deleteCanonicalAbove: db.prepare('DELETE FROM canonical WHERE number > ?'),
    deleteTxsAbove: db.prepare('DELETE FROM transactions WHERE block_number > ?'),
    deleteLogsAbove: db.prepare('DELETE FROM logs WHERE block_number > ?'),
    deleteBlock: db.prepare('DELETE FROM blocks WHERE hash = ?'),
    preStateRoot: db.prepare('SELECT root FROM pre_state_roots WHERE hash = ?') as Statement<[Buffer], { root: Buffer }>,
    deletePreStateRoot: db.prepare('DELETE FROM pre_state_roots WHERE hash = ?'),
    senderKeys: db.prepare('SELECT keys FROM sender_keys WHERE hash = ?') as Statement<[Buffer], { keys: Buffer }>,
    deleteSenderKeys: db.prepare('DELETE FROM sender_keys WHERE hash = ?'),
  };
  db.defaultSafeIntegers(false);
  for (const statement of [q.highest, q.tx]) statement.safeIntegers(true);
  const cacheReceiptBlocks = options.cacheReceiptBlocks ?? 64;
  const blockCache = createDecodedBlockCache({ maxBytes: options.cacheBytes });
  // Records of recently stored blocks: the follower and the tracer read a new head's receipts right
  // after it is stored, and would otherwise read the blob back and decode it.
  const receiptCache = new Map<string, readonly ReceiptRecord[]>();
  // number -> hash of blocks this store made canonical (the writer's: the follower asks for the new
  // head by number). Filled only by writes, so a read-only store (trace workers) always queries and
  // never keeps a hash another connection has since rewound.
  const canonicalCache = new Map<bigint, Uint8Array>();
  // Locations of the transactions of blocks whose rows another connection has yet to write.
  const unwrittenTxs = new Map<string, TxLocation>();
  const direct = directWrites(db);
  const logStatements = new Map<string, Statement<unknown[], { block_number: bigint; log_index: number }>>();

  /** Each signed transaction's sender key as the miner recovered it, into the transaction's own cache. */
  function restoreSenderKeys(block: Block, keys: Buffer | undefined): void {
    // A block stored before the table existed has no row: its senders are recovered when asked.
    if (!keys || keys.length !== block.transactions.length * KEY_BYTES) return;
    block.transactions.forEach((tx, i) => {
      if (!hasZeroSignature(tx)) tx.cache.senderPubKey = new Uint8Array(keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES));
    });
  }

  /** The senders' keys of `block` (zeros for impersonated transactions, whose sender no key gives). */
  function senderKeysOf(block: Block): Buffer {
    const keys = Buffer.alloc(block.transactions.length * KEY_BYTES);
    block.transactions.forEach((tx, i) => {
      if (!hasZeroSignature(tx)) keys.set(tx.getSenderPublicKey(), i * KEY_BYTES);
    });
    return keys;
  }

  function getHeaderByHash(hash: Uint8Array): BlockHeader | undefined {
    const key = flatHex(hash);
    const cached = blockCache.get(key)?.header;
    if (cached) return cached;
    const row = q.blockRlp.get(toBuffer(hash));
    if (!row) return undefined;
    // The block's RLP list is [header, transactions, uncles, withdrawals]: only the first is built.
    return createBlockHeaderFromBytesArray((RLP.decode(fromBuffer(row.rlp)) as Uint8Array[][])[0]!, { common: decodeCommon });
  }

  function getBlockByHash(hash: Uint8Array): Block | undefined {
    const key = flatHex(hash);
    const cached = blockCache.get(key);
    if (cached) return cached;
    const row = q.blockRlp.get(toBuffer(hash));
    if (!row) return undefined;
    let block = createBlockFromRLP(fromBuffer(row.rlp), { common: decodeCommon });
    restoreSenderKeys(block, q.senderKeys.get(toBuffer(hash))?.keys);
    // Impersonated transactions are stored with a zero signature: their senders are in the receipts.
    if (block.transactions.some(hasZeroSignature)) {
      const receiptsRow = q.receipts.get(toBuffer(hash));
      const senders = receiptsRow ? bytesToReceiptRecords(fromBuffer(receiptsRow.receipts)).map((r) => r.from) : [];
      block = restoreImpersonatedSenders(block, senders, common);
    }
    blockCache.set(key, block, row.rlp.length);
    return block;
  }

  return {
    getMeta(key) {
      const row = q.getMeta.get(key);
      return row ? fromBuffer(row.value) : undefined;
    },
    setMeta(key, value, writes = direct) {
      writes.run(WRITE.meta, key, toBuffer(value));
    },
    canonicalHash(number) {
      const cached = canonicalCache.get(number);
      if (cached) return cached;
      const row = q.canonical.get(number);
      return row ? fromBuffer(row.hash) : undefined;
    },
    getBlockByHash,
    getHeaderByHash,
    getReceiptRecords(blockHash) {
      const cached = receiptCache.get(flatHex(blockHash));
      if (cached) return [...cached];
      const row = q.receipts.get(toBuffer(blockHash));
      return row ? bytesToReceiptRecords(fromBuffer(row.receipts)) : undefined;
    },
    getTxLocation(txHash) {
      const unwritten = unwrittenTxs.size > 0 ? unwrittenTxs.get(flatHex(txHash)) : undefined;
      if (unwritten) return unwritten;
      const row = q.tx.get(toBuffer(txHash));
      return row ? { blockHash: fromBuffer(row.block_hash), blockNumber: row.block_number, index: Number(row.idx) } : undefined;
    },
    putCanonicalBlock(block, receipts, preStateRoot, writes) {
      const out = writes ?? direct;
      const hash = block.hash();
      const number = block.header.number;
      const rlp = block.serialize();
      out.run(WRITE.block, toBuffer(hash), number, toBuffer(rlp), toBuffer(receiptRecordsToBytes(receipts)));
      out.run(WRITE.canonical, number, toBuffer(hash));
      if (block.transactions.length > 0) out.run(WRITE.senderKeys, toBuffer(hash), senderKeysOf(block));
      const parentRoot = getHeaderByHash(block.header.parentHash)?.stateRoot;
      if (preStateRoot && !(parentRoot && equalsBytes(preStateRoot, parentRoot))) out.run(WRITE.preStateRoot, toBuffer(hash), toBuffer(preStateRoot));
      else out.run(WRITE.noPreStateRoot, toBuffer(hash));
      let logIndex = 0;
      block.transactions.forEach((tx, i) => {
        const txHash = tx.hash();
        out.run(WRITE.tx, toBuffer(txHash), number, i);
        if (writes) unwrittenTxs.set(flatHex(txHash), { blockHash: hash, blockNumber: number, index: i });
        for (const log of receipts[i]?.logs ?? []) {
          const t = log.topics.map(toBuffer);
          out.run(WRITE.log, number, logIndex++, toBuffer(log.address), t[0] ?? null, t[1] ?? null, t[2] ?? null, t[3] ?? null);
        }
      });
      const key = flatHex(hash);
      blockCache.set(key, block, rlp.length);
      receiptCache.set(key, [...receipts]);
      canonicalCache.set(number, hash);
      if (canonicalCache.size > CANONICAL_CACHE_ENTRIES) canonicalCache.delete(canonicalCache.keys().next().value as bigint);
      if (receiptCache.size > cacheReceiptBlocks) receiptCache.delete(receiptCache.keys().next().value as string);
    },
    written(block) {
      for (const tx of block.transactions) unwrittenTxs.delete(flatHex(tx.hash()));
    },
    unwritten(block) {
      for (const tx of block.transactions) unwrittenTxs.delete(flatHex(tx.hash()));
      const key = flatHex(block.hash());
      blockCache.delete(key);
      receiptCache.delete(key);
      const number = block.header.number;
      const cached = canonicalCache.get(number);
      if (cached && equalsBytes(cached, block.hash())) canonicalCache.delete(number);
    },
    preStateRoot(block) {
      const row = q.preStateRoot.get(toBuffer(block.hash()));
      return row ? fromBuffer(row.root) : getHeaderByHash(block.header.parentHash)?.stateRoot;
    },
    removeCanonicalAbove(number) {
      const removed: Block[] = [];
      for (const row of q.canonicalAbove.all(number)) {
        const block = getBlockByHash(fromBuffer(row.hash));
        if (block) removed.push(block);
        q.deleteBlock.run(row.hash);
        q.deletePreStateRoot.run(row.hash);
        q.deleteSenderKeys.run(row.hash);
        const key = flatHex(row.hash);
        blockCache.delete(key);
        receiptCache.delete(key);
      }
      q.deleteCanonicalAbove.run(number);
      for (const cachedNumber of [...canonicalCache.keys()]) if (cachedNumber > number) canonicalCache.delete(cachedNumber);
      q.deleteTxsAbove.run(number);
      q.deleteLogsAbove.run(number);
      return removed;
    },
    highestCanonical() {
      const row = q.highest.get();
      return row?.n ?? -1n;
    },
    queryLogs(query) {
      const where = ['block_number BETWEEN ? AND ?'];
      const args: unknown[] = [query.fromBlock, query.toBlock];
      if (query.addresses) {
        where.push(`address IN (${query.addresses.map(() => '?').join(',')})`);
        args.push(...query.addresses.map(toBuffer));
      }
      query.topics.slice(0, 4).forEach((options, i) => {
        if (!options) return;
        where.push(`topic${i} IN (${options.map(() => '?').join(',')})`);
        args.push(...options.map(toBuffer));
      });
      const sql = `SELECT block_number, log_index FROM logs WHERE ${where.join(' AND ')} ORDER BY block_number, log_index`;
      let statement = logStatements.get(sql);
      if (!statement) {
        statement = db.prepare(sql) as Statement<unknown[], { block_number: bigint; log_index: number }>;
        statement.safeIntegers(true);
        if (logStatements.size < 256) logStatements.set(sql, statement);
      }
      return statement.all(...args).map((row) => ({ blockNumber: BigInt(row.block_number), logIndex: Number(row.log_index) }));
    },
  };
}
