// The cache's storage: answers as JSON text in a least-recently-used map bounded in bytes, each
// tagged with the block it belongs to, indexed by block number so a reorg drops a range at once.
// What may enter and when an entry is still good is the caching backend's.
import type { Hex } from '../../../rpc/hex.js';

export interface CacheEntry {
  /** The answer's JSON text, written to the client as is. */
  readonly text: string;
  /** The block the answer belongs to. */
  readonly number: bigint;
  readonly hash: Hex;
  /** The block is at or below the finalized block: no reorg can replace it. */
  final: boolean;
}

export interface LruByteStore {
  /** The entry, now most recently used; undefined when absent. */
  get(key: string): CacheEntry | undefined;
  /** The entry without touching its recency (for lookups the cache does on its own behalf). */
  peek(key: string): CacheEntry | undefined;
  /**
   * Stores (or replaces) an entry, evicting least recently used ones until the total fits.
   * Returns how many were evicted. An entry larger than the whole bound is not stored.
   */
  set(key: string, entry: CacheEntry): number;
  delete(key: string): boolean;
  /** Drops every entry of a block numbered `fromNumber` or higher; returns how many. */
  dropFrom(fromNumber: bigint): number;
  clear(): void;
  /** Sum of the entries' sizes (their JSON text's length). */
  readonly bytes: number;
  readonly entries: number;
}

/** Size an entry counts for: its JSON text (one unit per character). */
export const entrySize = (entry: CacheEntry): number => entry.text.length;

export function createLruByteStore(maxBytes: number): LruByteStore {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const map = new Map<string, CacheEntry>();
  const byNumber = new Map<bigint, Set<string>>();
  let bytes = 0;

  const unindex = (key: string, entry: CacheEntry) => {
    const keys = byNumber.get(entry.number);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) byNumber.delete(entry.number);
  };
  const remove = (key: string): boolean => {
    const entry = map.get(key);
    if (!entry) return false;
    map.delete(key);
    bytes -= entrySize(entry);
    unindex(key, entry);
    return true;
  };

  return {
    get(key) {
      const entry = map.get(key);
      if (entry) {
        map.delete(key);
        map.set(key, entry);
      }
      return entry;
    },
    peek: (key) => map.get(key),
    set(key, entry) {
      remove(key);
      const size = entrySize(entry);
      if (size > maxBytes) return 0;
      let evicted = 0;
      while (bytes + size > maxBytes) {
        const oldest = map.keys().next();
        if (oldest.done) break;
        remove(oldest.value);
        evicted++;
      }
      map.set(key, entry);
      bytes += size;
      let keys = byNumber.get(entry.number);
      if (!keys) byNumber.set(entry.number, (keys = new Set()));
      keys.add(key);
      return evicted;
    },
    delete: remove,
    dropFrom(fromNumber) {
      let dropped = 0;
      for (const [number, keys] of [...byNumber]) {
        if (number < fromNumber) continue;
        for (const key of [...keys]) if (remove(key)) dropped++;
      }
      return dropped;
    },
    clear() {
      map.clear();
      byNumber.clear();
      bytes = 0;
    },
    get bytes() {
      return bytes;
    },
    get entries() {
      return map.size;
    },
  };
}
