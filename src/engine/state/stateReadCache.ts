// Values read from state tries, keyed by (trie root, key) and shared by every overlay state manager
// of a process. Tries are content-addressed, so the value under a key at a given root never changes:
// an entry can only be evicted (memory bound), never go stale, and no other root can ever see it.
/** Raw trie values (account RLP, RLP-encoded storage word) by root and key; `null` = absent. */
export interface StateReadCache {
  get(rootHex: string, keyHex: string): Uint8Array | null | undefined;
  set(rootHex: string, keyHex: string, value: Uint8Array | null): void;
  /** Entries held, across all roots. */
  size(): number;
  clear(): void;
}

export interface StateReadCacheOptions {
  /** Entries kept across all roots (least recently used root evicted first); default 100,000. */
  maxEntries?: number;
}

export function createStateReadCache(options: StateReadCacheOptions = {}): StateReadCache {
  const maxEntries = options.maxEntries ?? 100_000;
  // Both maps are insertion-ordered: roots by last use, keys by insertion (first in, first evicted).
  const roots = new Map<string, Map<string, Uint8Array | null>>();
  let count = 0;

  function evict(): void {
    while (count > maxEntries) {
      const [rootHex, values] = roots.entries().next().value as [string, Map<string, Uint8Array | null>];
      values.delete(values.keys().next().value as string);
      count--;
      if (values.size === 0) roots.delete(rootHex);
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
      if (values === undefined) values = new Map();
      else roots.delete(rootHex);
      roots.set(rootHex, values);
      if (!values.has(keyHex)) count++;
      values.set(keyHex, value);
      evict();
    },
    size: () => count,
    clear() {
      roots.clear();
      count = 0;
    },
  };
}
