// Values read from state tries, keyed by (trie root, key) and shared by every overlay state manager
// of a process. Tries are content-addressed, so the value under a key at a given root never changes:
// an entry can only be evicted (memory bound), never go stale, and no other root can ever see it.
/** Raw trie values (account RLP, RLP-encoded storage word) by root and key; `null` = absent. */
export interface StateReadCache {
  get(rootHex: string, keyHex: string): Uint8Array | null | undefined;
  set(rootHex: string, keyHex: string, value: Uint8Array | null): void;
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
  const entryBytes = (keyHex: string, value: Uint8Array | null): number => ENTRY_BYTES + keyHex.length + (value?.length ?? 0);

  function evict(): void {
    while ((count > maxEntries || bytes > maxBytes) && count > 0) {
      const [rootHex, values] = roots.entries().next().value as [string, Map<string, Uint8Array | null>];
      const [keyHex, value] = values.entries().next().value as [string, Uint8Array | null];
      values.delete(keyHex);
      count--;
      bytes -= entryBytes(keyHex, value);
      if (values.size === 0) {
        roots.delete(rootHex);
        bytes -= ROOT_BYTES + rootHex.length;
      }
    }
  }

  return {
    get(rootHex, keyHex) {
      const values = roots.get(rootHex);
      if (values === undefined) return undefined;
      const value = values.get(keyHex);
      if (value !== undefined) {
        roots.delete(rootHex);
        roots.set(rootHex, values);
      }
      return value;
    },
    set(rootHex, keyHex, value) {
      let values = roots.get(rootHex);
      if (values === undefined) {
        values = new Map();
        bytes += ROOT_BYTES + rootHex.length;
      } else roots.delete(rootHex);
      roots.set(rootHex, values);
      const old = values.get(keyHex);
      if (old === undefined) count++;
      else bytes -= entryBytes(keyHex, old);
      values.set(keyHex, value);
      bytes += entryBytes(keyHex, value);
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
