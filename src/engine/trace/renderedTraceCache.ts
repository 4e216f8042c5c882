// A bounded cache of rendered traces of mined transactions and blocks. A mined transaction's trace
// never changes until a reorg, so entries live until memory runs short (least recently used go
// first) or the chain drops blocks (everything goes: cheap, and reorgs are rare on a dev chain).
// Values are usually RawJson (the rendered text), so a hit is answered without serialising again.
import { RawJson } from '../../rpc/rawJson.js';

export interface RenderedTraceCacheOptions {
  /** Upper bound on the summed JSON size of the entries, bytes (default 64 MiB). */
  maxBytes?: number;
}

export interface RenderedTraceCache {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  clear(): void;
  /** Entries and their summed size, for metrics and tests. */
  stats(): { entries: number; bytes: number };
}

/** Creates an LRU cache bounded by the JSON size of what it holds. */
export function createRenderedTraceCache(options: RenderedTraceCacheOptions = {}): RenderedTraceCache {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  // Map order is recency order (oldest first). `tick` counts insertions and moves; an entry moved
  // to the end less than half the map's size ticks ago is still in the newer half, so a hit leaves
  // it in place: hot entries stay safe from eviction without a delete and re-insert per hit.
  const entries = new Map<string, { value: unknown; bytes: number; tick: number }>();
  let bytes = 0;
  let tick = 0;
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (tick - entry.tick >= entries.size >> 1) {
        entries.delete(key);
        entries.set(key, entry);
        entry.tick = ++tick;
      }
      return entry.value;
    },
    set(key, value) {
      const size = value instanceof RawJson ? value.text.length : (JSON.stringify(value)?.length ?? 0);
      if (size > maxBytes) return;
      const old = entries.get(key);
      if (old) {
        bytes -= old.bytes;
        entries.delete(key);
      }
      entries.set(key, { value, bytes: size, tick: ++tick });
      bytes += size;
      for (const [k, e] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= e.bytes;
      }
    },
    clear() {
      entries.clear();
      bytes = 0;
    },
    stats() {
      return { entries: entries.size, bytes };
    },
  };
}
