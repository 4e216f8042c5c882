// Values read from state tries, keyed by (trie root, key) and shared by every overlay state manager
// of a process. Tries are content-addressed, so the value under a key at a given root never changes:
// an entry can only be evicted (memory bound), never go stale, and no other root can ever see it.
import { flatHex } from './flatHex.js';

/** Raw trie values (account RLP, RLP-encoded storage word) by root and key ({@link readCacheKey}); `null` = absent. */
export interface StateReadCache {
  get(rootKey: string, key: string): Uint8Array | null | undefined;
  set(rootKey: string, key: string, value: Uint8Array | null): void;
  /** Entries held, across all roots. */
  size(): number;
  /** Estimated memory of what is held, bytes. */
  bytes(): number;
  clear(): void;
}

export interface StateReadCacheOptions {
  /** Entries kept across all roots (least recently used root evicted first); default 100,000. */
  maxEntries?: number;
  /** Estimated bytes kept across all roots, evicted in the same order; default 16 MiB. */
  maxBytes?: number;
}

const pair = (bytes: Uint8Array, i: number): number => bytes[i]! | (bytes[i + 1]! << 8);

/**
 * The cache's key for a root, an address or a storage key: a 32- or 20-byte value as 16 or 10
 * UTF-16 code units holding two bytes each, made in one call. A hex string costs a trip into Node's
 * encoder and a Buffer view per key: about 440 ns a key against 100 (a 32-byte key made, set and
 * read back in a Map, Node 20), and these keys are made on every state read of a traced call.
 * Other lengths (none are read today) become `x` and hex: an odd length, so never equal to either.
 */
export function readCacheKey(bytes: Uint8Array): string {
  const b = bytes;
  if (b.length === 32) {
    return String.fromCharCode(pair(b, 0), pair(b, 2), pair(b, 4), pair(b, 6), pair(b, 8), pair(b, 10), pair(b, 12), pair(b, 14), pair(b, 16), pair(b, 18), pair(b, 20), pair(b, 22), pair(b, 24), pair(b, 26), pair(b, 28), pair(b, 30));
  }
  if (b.length === 20) return String.fromCharCode(pair(b, 0), pair(b, 2), pair(b, 4), pair(b, 6), pair(b, 8), pair(b, 10), pair(b, 12), pair(b, 14), pair(b, 16), pair(b, 18));
  return `x${flatHex(b)}`;
}

/** Default budget of one cache (the chain's, and each trace worker's), bytes. */
export const STATE_READ_CACHE_BYTES = 16 * 1024 * 1024;

// Every new block is a new root, so under steady traffic most roots hold a key or two: the
// per-root Map costs as much as its entries. Measured (Node 20, 60,000 entries of 76-byte values
// with their keys and roots made beforehand): 215 bytes of heap an entry at 50 per root, 386 at
// one per root, plus the value outside the heap. The key and root strings come on top.
const ENTRY_BYTES = 240;
const ROOT_BYTES = 240;

export function createStateReadCache(options: StateReadCacheOptions = {}): StateReadCache {
  const maxEntries = options.maxEntries ?? 100_000;
  const maxBytes = options.maxBytes ?? STATE_READ_CACHE_BYTES;
  // Both maps are insertion-ordered: roots by last use, keys by insertion (first in, first evicted).
  const roots = new Map<string, Map<string, Uint8Array | null>>();
  let count = 0;
  let bytes = 0;
  const entryBytes = (key: string, value: Uint8Array | null): number => ENTRY_BYTES + 2 * key.length + (value?.length ?? 0);

  function evict(): void {
    while ((count > maxEntries || bytes > maxBytes) && count > 0) {
      const [rootKey, values] = roots.entries().next().value as [string, Map<string, Uint8Array | null>];
      const [key, value] = values.entries().next().value as [string, Uint8Array | null];
      values.delete(key);
      count--;
      bytes -= entryBytes(key, value);
      if (values.size === 0) {
        roots.delete(rootKey);
        bytes -= ROOT_BYTES + 2 * rootKey.length;
      }
    }
  }

  return {
    get(rootKey, key) {
      const values = roots.get(rootKey);
      if (values === undefined) return undefined;
      const value = values.get(key);
      if (value !== undefined) {
        roots.delete(rootKey);
        roots.set(rootKey, values);
      }
      return value;
    },
    set(rootKey, key, value) {
      let values = roots.get(rootKey);
      if (values === undefined) {
        values = new Map();
        bytes += ROOT_BYTES + 2 * rootKey.length;
      } else roots.delete(rootKey);
      roots.set(rootKey, values);
      const old = values.get(key);
      if (old === undefined) count++;
      else bytes -= entryBytes(key, old);
      values.set(key, value);
      bytes += entryBytes(key, value);
      evict();
    },
    size: () => count,
    bytes: () => bytes,
    clear() {
      roots.clear();
      count = 0;
      bytes = 0;
    },
  };
}
