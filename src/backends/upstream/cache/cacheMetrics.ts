// Prometheus series of the finality-aware cache: hits and misses per network and method, entries
// removed (evicted for space, dropped by a reorg, stale at a hit), and bytes and entries held.
// Registered into any registry of the gateway's shape (gateway/ops/metricsRegistry.ts), which
// this module names only structurally: backends do not import the gateway.

/** A cache's counts (the caching backend's `stats()`). */
export interface CacheStats {
  hits: number;
  misses: number;
  bytes: number;
  entries: number;
}

export type CacheRemoval = 'evicted' | 'reorg' | 'stale';

export interface CacheMetrics {
  /** One cacheable call, answered from the cache (`hit`) or sent on. `method` is a cacheable method name. */
  lookup(network: string, method: string, hit: boolean): void;
  /** `count` entries removed for `reason`. */
  removed(network: string, reason: CacheRemoval, count: number): void;
  /** Adds a cache's sizes to the bytes and entries gauges; returns the function that takes them out. */
  track(network: string, stats: () => CacheStats): () => void;
}

/** The part of the gateway's MetricsRegistry this module uses. */
export interface CacheMetricsRegistry {
  counter(name: string, help: string, labelNames: readonly string[]): { inc(labels: readonly string[], by?: number): void };
  gauge(name: string, help: string, collect: () => ReadonlyArray<{ labels?: Record<string, string>; value: number }>): void;
}

/** Registers the cache series once per registry; every network's cache reports through the result. */
export function createCacheMetrics(registry: CacheMetricsRegistry): CacheMetrics {
  const hits = registry.counter('tracehook_cache_hits_total', 'Cacheable JSON-RPC calls answered from the finality-aware cache, by network and method.', ['network', 'method']);
  const misses = registry.counter('tracehook_cache_misses_total', 'Cacheable JSON-RPC calls the cache could not answer (sent upstream), by network and method.', ['network', 'method']);
  const removed = registry.counter('tracehook_cache_removed_total', 'Cache entries removed: evicted (for space), reorg (their block replaced), stale (no longer canonical when asked).', ['network', 'reason']);
  const tracked = new Map<number, { network: string; stats: () => CacheStats }>();
  let nextId = 0;
  const sample = (field: 'bytes' | 'entries') => () => {
    const byNetwork = new Map<string, number>();
    for (const { network, stats } of tracked.values()) byNetwork.set(network, (byNetwork.get(network) ?? 0) + stats()[field]);
    return [...byNetwork].map(([network, value]) => ({ labels: { network }, value }));
  };
  registry.gauge('tracehook_cache_bytes', 'Size of the answers held by the finality-aware cache (JSON text), by network.', sample('bytes'));
  registry.gauge('tracehook_cache_entries', 'Answers held by the finality-aware cache, by network.', sample('entries'));
  return {
    lookup(network, method, hit) {
      (hit ? hits : misses).inc([network, method]);
    },
    removed(network, reason, count) {
      if (count > 0) removed.inc([network, reason], count);
    },
    track(network, stats) {
      const id = nextId++;
      tracked.set(id, { network, stats });
      return () => tracked.delete(id);
    },
  };
}
