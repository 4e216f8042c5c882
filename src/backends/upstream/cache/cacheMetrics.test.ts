// The cache's series in the gateway's real registry: counts made before binding carry over,
// gauges sum the tracked caches per network, one binding per registry.
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry } from '../../../gateway/ops/metricsRegistry.js';
import { createCacheMetrics } from './cacheMetrics.js';

describe('cacheMetrics', () => {
  it('default: hits, misses and removals before and after binding all reach the registry', () => {
    const metrics = createCacheMetrics();
    metrics.lookup('ETH_MAINNET', 'trace_transaction', true);
    metrics.lookup('ETH_MAINNET', 'trace_transaction', false);
    metrics.removed('ETH_MAINNET', 'reorg', 3);
    metrics.removed('ETH_MAINNET', 'evicted', 0);
    const registry = createMetricsRegistry();
    metrics.bind(registry);
    metrics.lookup('ETH_MAINNET', 'trace_transaction', true);
    const text = registry.render();
    expect(text).toContain('tracehook_cache_hits_total{network="ETH_MAINNET",method="trace_transaction"} 2\n');
    expect(text).toContain('tracehook_cache_misses_total{network="ETH_MAINNET",method="trace_transaction"} 1\n');
    expect(text).toContain('tracehook_cache_removed_total{network="ETH_MAINNET",reason="reorg"} 3\n');
    expect(text).not.toContain('reason="evicted"');
  });

  it('behavior: bytes and entries gauges sum the tracked caches per network until untracked', () => {
    const registry = createMetricsRegistry();
    const metrics = createCacheMetrics(registry);
    const stats = (bytes: number, entries: number) => () => ({ hits: 0, misses: 0, bytes, entries });
    metrics.track('A', stats(10, 1));
    const untrack = metrics.track('A', stats(5, 2));
    metrics.track('B', stats(7, 3));
    expect(registry.render()).toContain('tracehook_cache_bytes{network="A"} 15\ntracehook_cache_bytes{network="B"} 7\n');
    untrack();
    expect(registry.render()).toContain('tracehook_cache_entries{network="A"} 1\n');
  });

  it('error: binding twice is refused', () => {
    const metrics = createCacheMetrics(createMetricsRegistry());
    expect(() => metrics.bind(createMetricsRegistry())).toThrow(/already bound/);
  });
});
