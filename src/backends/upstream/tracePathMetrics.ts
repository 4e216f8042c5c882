// Prometheus series of the trace path choice (tracePaths.ts): answered trace calls per network,
// method and source (native, translated, executed), and translations refused for a gap that
// another path then answered or not. Registered into any registry of the gateway's shape, named
// only structurally (backends do not import the gateway); the registry may come later (bind),
// like the cache's series (cache/cacheMetrics.ts).

export type TraceSource = 'native' | 'translated' | 'executed';

export interface TracePathMetrics {
  /** One trace call answered by `source`. `method` is a known trace method name or `other`. */
  answered(network: string, method: string, source: TraceSource): void;
  /** A translation refused (TranslationGapError) for `missing`. */
  gap(network: string, method: string, missing: string): void;
}

/** The part of the gateway's MetricsRegistry this module uses. */
export interface TracePathMetricsRegistry {
  counter(name: string, help: string, labelNames: readonly string[]): { inc(labels: readonly string[], by?: number): void };
}

export interface BindableTracePathMetrics extends TracePathMetrics {
  /** Registers the series into `registry` (once); counts made before are carried over. */
  bind(registry: TracePathMetricsRegistry): void;
}

type CounterName = 'answers' | 'gaps';

/** Trace path metrics for every network; bound to a registry now (`registry`) or later (`bind`). */
export function createTracePathMetrics(registry?: TracePathMetricsRegistry): BindableTracePathMetrics {
  let bound: Record<CounterName, ReturnType<TracePathMetricsRegistry['counter']>> | undefined;
  const early = new Map<string, { name: CounterName; labels: string[]; value: number }>();
  const add = (name: CounterName, labels: string[]) => {
    if (bound) return bound[name].inc(labels, 1);
    const key = `${name}\u0000${labels.join('\u0000')}`;
    const seen = early.get(key);
    if (seen) seen.value++;
    else early.set(key, { name, labels, value: 1 });
  };
  const metrics: BindableTracePathMetrics = {
    answered: (network, method, source) => add('answers', [network, method, source]),
    gap: (network, method, missing) => add('gaps', [network, method, missing]),
    bind(target) {
      if (bound) throw new TypeError('trace path metrics are already bound to a registry');
      bound = {
        answers: target.counter('tracehook_trace_answers_total', 'Trace calls of upstream networks answered, by network, method and source: native (an upstream has the method), translated (from the other trace family), executed (the embedded engine on the upstream\'s state).', ['network', 'method', 'source']),
        gaps: target.counter('tracehook_trace_translation_gaps_total', 'Translations refused because the upstream\'s output lacks what the answer needs, by network, method and what was missing.', ['network', 'method', 'missing']),
      };
      for (const { name, labels, value } of early.values()) bound[name].inc(labels, value);
      early.clear();
    },
  };
  if (registry) metrics.bind(registry);
  return metrics;
}
