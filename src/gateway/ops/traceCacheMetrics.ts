// The embedded chain's rendered-trace cache in /metrics: entries and the JSON bytes they hold
// (bounded by --trace-cache-mb), read at each scrape. It fills as traces are asked for and, from
// the miner's kept records, as blocks are mined (trace_transaction is pre-rendered).
import type { MetricsRegistry } from './metricsRegistry.js';

export function registerTraceCacheMetrics(registry: MetricsRegistry, stats: () => { entries: number; bytes: number }): void {
  registry.gauge('tracehook_trace_cache_entries', 'Rendered traces of mined transactions and blocks held by the embedded chain\'s trace cache.', () => [{ labels: {}, value: stats().entries }]);
  registry.gauge('tracehook_trace_cache_bytes', 'JSON bytes held by the embedded chain\'s trace cache (at most --trace-cache-mb).', () => [{ labels: {}, value: stats().bytes }]);
}
