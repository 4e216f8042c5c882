// The trace pool in /metrics: jobs waiting per key class (the requester's tier, `internal` for the
// service's own work such as the webhook follower) and the workers by state, read from the pool's
// stats at each scrape.
import { API_KEY_TIERS } from '../../store/types.js';
import type { TracePoolStats } from '../../engine/trace/tracePool.js';
import type { MetricsRegistry } from './metricsRegistry.js';

/** Every tier has a series, at 0 when none of its jobs wait, so dashboards see all classes. */
const CLASSES = [...API_KEY_TIERS, 'internal'];

export function registerTraceQueueMetrics(registry: MetricsRegistry, stats: () => TracePoolStats): void {
  registry.gauge('tracehook_trace_queue_depth', 'Trace jobs waiting for a worker, by key class (the API key tier; internal: the service itself).', () => {
    const { queuedByClass } = stats();
    const classes = new Set([...CLASSES, ...Object.keys(queuedByClass)]);
    return [...classes].map((keyClass) => ({ labels: { key_class: keyClass }, value: queuedByClass[keyClass] ?? 0 }));
  });
  registry.gauge('tracehook_trace_workers', 'Trace workers by state: busy with a job, idle, or still opening the chain.', () => {
    const { workers, starting, busy } = stats();
    return [
      { labels: { state: 'busy' }, value: busy },
      { labels: { state: 'idle' }, value: workers - starting - busy },
      { labels: { state: 'starting' }, value: starting },
    ];
  });
}
