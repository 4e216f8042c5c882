// SQLite-backed, content-addressed store of state trie nodes and contract code for the dev chain.
// Writes are buffered in memory until the caller flushes them inside the SQLite transaction that
// also records what refers to them (a block or the working root), so a crash never leaves a root
// pointing at missing nodes. Nothing is ever deleted: every historical root stays readable.
import type { Database, Statement } from 'better-sqlite3';
import type { SqlWrites } from '../../store/sqlite/sqlWrites.js';
import { flatHex } from './flatHex.js';
import { reachablePendingKeys } from './reachableNodes.js';

/** Key/value store of trie nodes keyed by unprefixed hex (as @ethereumjs/mpt hands them over). */
export interface TrieNodeStore {
  get(keyHex: string): Uint8Array | undefined;
  /** Buffers a write; it reaches SQLite with the next {@link TrieNodeStore.flushPending}. */
  put(keyHex: string, value: Uint8Array): void;
  /** Number of buffered writes. */
  pendingCount(): number;
  /**
   * Writes buffered nodes to SQLite. Call inside a `db.transaction`; not atomic on its own. Given
   * the state root being committed, writes only what it needs (reachableNodes.ts: the nodes it
   * reaches, and code) and drops the nodes of intermediate roots, which nothing refers to.
   * With `writes`, the inserts go there (another connection runs them later) and the nodes stay
   * readable from memory until {@link TrieNodeStore.written} or {@link TrieNodeStore.unwritten}
   * is told the returned keys.
   */
  flushPending(committedRoot?: Uint8Array, writes?: SqlWrites): string[] | undefined;
  /** The nodes of a flush into `writes` are in the database now. */
  written(keys: readonly string[]): void;
  /** The nodes of a flush into `writes` were not written: they are forgotten (a later flush writes them again). */
  unwritten(keys: readonly string[]): void;
  /**
   * Writes up to `max` buffered nodes in a transaction of their own and returns how many are left:
   * a large write (a state load) spread over turns of the event loop. Nodes are content-addressed
   * and unreferenced until a root that needs them is committed, so writing some early is harmless.
   */
  flushSome(max: number): number;
  /** Drops buffered writes (after a failed block or setter; the working root never refers to them). */
  discardPending(): void;
  /** Entries in the in-memory cache and their estimated size, bytes. */
  cacheStats(): { entries: number; bytes: number };
}

export interface TrieNodeStoreOptions {
  db: Database;
  /** Budget of the persisted nodes kept in memory (LRU), estimated bytes (see {@link TRIE_CACHE_BYTES}). */
  cacheBytes?: number;
}

/**
 * Default budget of one store's cache (the chain's, and each trace worker's), bytes: about 90,000
 * trie nodes of the usual 200-odd bytes, as the earlier bound of 100,000 entries held. Bytes rather
 * than entries because the store also holds contract code, up to 24 KiB an entry (EIP-170), with
 * which 100,000 entries could pass 2 GiB per thread.
 */
export const TRIE_CACHE_BYTES = 48 * 1024 * 1024;

/**
 * Memory of a cached entry beside its value: the hex key, the Map slot, the Uint8Array and its
 * ArrayBuffer. Measured 311 bytes of heap per node (10,505 nodes of the load run's chain, Node 20),
 * the value's bytes outside the heap.
 */
const ENTRY_BYTES = 320;

const INSERT_NODE = 'INSERT OR IGNORE INTO trie_nodes (key, value) VALUES (?, ?)';

/** Creates the `trie_nodes` table if needed and returns a store over it. */
export function createTrieNodeStore(options: TrieNodeStoreOptions): TrieNodeStore {
  const { db } = options;
  const cacheBytes = options.cacheBytes ?? TRIE_CACHE_BYTES;
  db.exec('CREATE TABLE IF NOT EXISTS trie_nodes (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID');
  const select: Statement<[Buffer], { value: Buffer }> = db.prepare('SELECT value FROM trie_nodes WHERE key = ?');
  const insert: Statement<[Buffer, Uint8Array]> = db.prepare(INSERT_NODE);
  const pending = new Map<string, Uint8Array>();
  // Flushed into another connection's writes, not yet written (readable here meanwhile).
  const unwrittenNodes = new Map<string, Uint8Array>();
  // Map iteration order is insertion order, so re-inserting on hit gives a cheap LRU.
  const cache = new Map<string, Uint8Array>();
  let cachedBytes = 0;

  function remember(keyHex: string, value: Uint8Array): void {
    const old = cache.get(keyHex);
    if (old !== undefined) {
      cache.delete(keyHex);
      cachedBytes -= ENTRY_BYTES + old.byteLength;
    }
    if (ENTRY_BYTES + value.byteLength > cacheBytes) return;
    cache.set(keyHex, value);
    cachedBytes += ENTRY_BYTES + value.byteLength;
    for (const [oldestKey, oldest] of cache) {
      if (cachedBytes <= cacheBytes) break;
      cache.delete(oldestKey);
      cachedBytes -= ENTRY_BYTES + oldest.byteLength;
    }
  }

  /** One buffered node into SQLite (inside the caller's transaction) and the decoded-node cache. */
  const write = (keyHex: string, value: Uint8Array) => {
    insert.run(Buffer.from(keyHex, 'hex'), value);
    remember(keyHex, value);
  };

  return {
    get(keyHex) {
      const buffered = pending.get(keyHex) ?? (unwrittenNodes.size > 0 ? unwrittenNodes.get(keyHex) : undefined);
      if (buffered !== undefined) return buffered;
      const cached = cache.get(keyHex);
      if (cached !== undefined) {
        cache.delete(keyHex);
        cache.set(keyHex, cached);
        return cached;
      }
      const row = select.get(Buffer.from(keyHex, 'hex'));
      if (row === undefined) return undefined;
      const value = new Uint8Array(row.value.buffer, row.value.byteOffset, row.value.byteLength);
      remember(keyHex, value);
      return value;
    },
    put(keyHex, value) {
      pending.set(keyHex, value);
    },
    pendingCount() {
      return pending.size;
    },
    flushPending(committedRoot, writes) {
      const needed = committedRoot && reachablePendingKeys(pending, flatHex(committedRoot));
      if (!writes) {
        for (const [keyHex, value] of pending) if (!needed || needed.has(keyHex)) write(keyHex, value);
        pending.clear();
        return undefined;
      }
      const keys: string[] = [];
      for (const [keyHex, value] of pending) {
        if (needed && !needed.has(keyHex)) continue;
        writes.run(INSERT_NODE, Buffer.from(keyHex, 'hex'), value);
        unwrittenNodes.set(keyHex, value);
        keys.push(keyHex);
      }
      pending.clear();
      return keys;
    },
    written(keys) {
      for (const keyHex of keys) {
        const value = unwrittenNodes.get(keyHex);
        if (value === undefined) continue;
        unwrittenNodes.delete(keyHex);
        remember(keyHex, value);
      }
    },
    unwritten(keys) {
      for (const keyHex of keys) unwrittenNodes.delete(keyHex);
    },
    flushSome(max) {
      db.transaction(() => {
        let written = 0;
        for (const [keyHex, value] of pending) {
          if (written++ >= max) break;
          write(keyHex, value);
          pending.delete(keyHex);
        }
      })();
      return pending.size;
    },
    discardPending() {
      pending.clear();
    },
    cacheStats: () => ({ entries: cache.size, bytes: cachedBytes }),
  };
}
