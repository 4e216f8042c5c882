// Prometheus series of the finality-aware cache: hits and misses per network and method, entries
// removed (evicted for space, dropped by a reorg, stale at a hit), bytes and entries held, and the
// shared tier's reads and writes by outcome.
// Registered into any registry of the gateway's shape (gateway/ops/metricsRegistry.ts), which
// this module names only structurally: backends do not import the gateway. The registry may come
// after the caches (bind), since the gateway that owns it is built with them.

/** A cache's counts (the caching backend's `stats()`). */
export interface CacheStats {
  hits: number;
  misses: number;
  bytes: number;
  entries: number;
}

export type CacheRemoval = 'evicted' | 'reorg' | 'stale';

/**
 * A read of the shared tier (sharedCacheTier.ts): `hit` served, `miss` absent, `stale` present but
 * its block not canonical or final in this gateway's view, `invalid` not a readable entry,
 * `error`/`timeout` Redis failed or was slower than its bound (then the call is computed).
 */
export type SharedLookupOutcome = 'hit' | 'miss' | 'stale' | 'invalid' | 'error' | 'timeout';
/** A write to the shared tier: `stored`, `full` (over the byte budget), `too_large` (one entry), `error`. */
export type SharedWriteOutcome = 'stored' | 'full' | 'too_large' | 'error';

export interface CacheMetrics {
  /** One cacheable call, answered from the cache (`hit`) or sent on. `method` is a cacheable method name. */
  lookup(network: string, method: string, hit: boolean): void;
  /** `count` entries removed for `reason`. */
  removed(network: string, reason: CacheRemoval, count: number): void;
  /** `count` reads of the shared tier ended as `outcome`. */
  sharedLookup(network: string, outcome: SharedLookupOutcome, count?: number): void;
  /** One write to the shared tier ended as `outcome`. */
  sharedWrite(network: string, outcome: SharedWriteOutcome): void;
  /** Adds a cache's sizes to the bytes and entries gauges; returns the function that takes them out. */
  track(network: string, stats: () => CacheStats): () => void;
}

/** The part of the gateway's MetricsRegistry this module uses. */
export interface CacheMetricsRegistry {
  counter(name: string, help: string, labelNames: readonly string[]): { inc(labels: readonly string[], by?: number): void };
  gauge(name: string, help: string, collect: () => ReadonlyArray<{ labels?: Record<string, string>; value: number }>): void;
}

export interface BindableCacheMetrics extends CacheMetrics {
  /**
   * Registers the series into `registry` (once): counts made before are carried over, so the
   * caches can be built before the gateway that owns the registry.
   */
  bind(registry: CacheMetricsRegistry): void;
}

type CounterName = 'hits' | 'misses' | 'removed' | 'sharedLookups' | 'sharedWrites';
type BoundCounters = Record<CounterName, ReturnType<CacheMetricsRegistry['counter']>>;

/** Cache metrics for every network's cache; bound to a registry now (`registry`) or later (`bind`). */
export function createCacheMetrics(registry?: CacheMetricsRegistry): BindableCacheMetrics {
  const tracked = new Map<number, { network: string; stats: () => CacheStats }>();
  let nextId = 0;
  let bound: BoundCounters | undefined;
  const early = new Map<string, { name: CounterName; labels: string[]; value: number }>();
  const add = (name: CounterName, labels: string[], by: number) => {
    if (bound) return bound[name].inc(labels, by);
    const key = `${name}\u0000${labels.join('\u0000')}`;
    const seen = early.get(key);
    if (seen) seen.value += by;
    else early.set(key, { name, labels, value: by });
  };
  const sample = (field: 'bytes' | 'entries') => () => {
    const byNetwork = new Map<string, number>();
    for (const { network, stats } of tracked.values()) byNetwork.set(network, (byNetwork.get(network) ?? 0) + stats()[field]);
    return [...byNetwork].map(([network, value]) => ({ labels: { network }, value }));
  };
  const metrics: BindableCacheMetrics = {
    lookup(network, method, hit) {
      add(hit ? 'hits' : 'misses', [network, method], 1);
    },
    removed(network, reason, count) {
      if (count > 0) add('removed', [network, reason], count);
    },
    sharedLookup(network, outcome, count = 1) {
      if (count > 0) add('sharedLookups', [network, outcome], count);
    },
    sharedWrite(network, outcome) {
      add('sharedWrites', [network, outcome], 1);
    },
    track(network, stats) {
      const id = nextId++;
      tracked.set(id, { network, stats });
      return () => tracked.delete(id);
    },
    bind(target) {
      if (bound) throw new TypeError('cache metrics are already bound to a registry');
      bound = {
        hits: target.counter('tracehook_cache_hits_total', 'Cacheable JSON-RPC calls answered from the finality-aware cache, by network and method.', ['network', 'method']),
        misses: target.counter('tracehook_cache_misses_total', 'Cacheable JSON-RPC calls the cache could not answer (sent upstream), by network and method.', ['network', 'method']),
        sharedLookups: target.counter(
          'tracehook_shared_cache_lookups_total',
          'Reads of the shared trace cache (Redis) after a miss of the process cache, by network and outcome: hit, miss, stale (block not canonical or final here), invalid, error, timeout.',
          ['network', 'outcome'],
        ),
        sharedWrites: target.counter('tracehook_shared_cache_writes_total', 'Writes to the shared trace cache (Redis), by network and outcome: stored, full (byte budget), too_large, error.', ['network', 'outcome']),
        removed: target.counter('tracehook_cache_removed_total', 'Cache entries removed: evicted (for space), reorg (their block replaced), stale (no longer canonical when asked).', ['network', 'reason']),
      };
      target.gauge('tracehook_cache_bytes', 'Size of the answers held by the finality-aware cache (characters of JSON text), by network.', sample('bytes'));
      target.gauge('tracehook_cache_entries', 'Answers held by the finality-aware cache, by network.', sample('entries'));
      for (const { name, labels, value } of early.values()) bound[name].inc(labels, value);
      early.clear();
    },
  };
  if (registry) metrics.bind(registry);
  return metrics;
}
