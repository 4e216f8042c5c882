// The gateway's Prometheus metrics: HTTP responses, JSON-RPC calls (count, errors by code,
// latency) per method, compute units and throttling per tier, trace durations, process memory.
// Series are cached per label set, so recording a call allocates nothing once warm.
import type { ApiKeyTier } from '../../store/types.js';
import type { CounterChild, HistogramChild, MetricsRegistry } from './metricsRegistry.js';
import { createMetricsRegistry } from './metricsRegistry.js';

const LATENCY_BUCKETS_SEC = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface GatewayMetrics {
  readonly registry: MetricsRegistry;
  /** One HTTP response; `route` is a fixed name (rpc, api, healthz, …), never a raw path. */
  httpResponse(route: string, status: number): void;
  /** One JSON-RPC call; `code` is 0 on success. `method` must come from a bounded set. */
  rpcCall(network: string, method: string, code: number, seconds: number): void;
  computeUnits(tier: ApiKeyTier, units: number): void;
  rateLimited(tier: ApiKeyTier): void;
  /** One request answered by the keep-alive fast path rather than node:http. */
  fastPathRequest(): void;
  /** One connection the fast path handed to node:http. */
  handedOff(): void;
}

export function isTraceMethod(method: string): boolean {
  return method.startsWith('trace_') || method.startsWith('debug_trace');
}

interface CallSeries {
  calls: CounterChild;
  errors: CounterChild | undefined;
  latency: HistogramChild;
  trace: HistogramChild | undefined;
}

/** A two-level cache of label-bound series. */
function memo<A, B, V>(make: (a: A, b: B) => V): (a: A, b: B) => V {
  const outer = new Map<A, Map<B, V>>();
  return (a, b) => {
    let inner = outer.get(a);
    if (!inner) outer.set(a, (inner = new Map()));
    let v = inner.get(b);
    if (v === undefined) inner.set(b, (v = make(a, b)));
    return v;
  };
}

export function createGatewayMetrics(): GatewayMetrics {
  const registry = createMetricsRegistry();
  const http = registry.counter('tracehook_http_responses_total', 'HTTP responses by route and status.', ['route', 'status']);
  const calls = registry.counter('tracehook_rpc_calls_total', 'JSON-RPC calls by network, method and outcome code (0 = success).', ['network', 'method', 'code']);
  const errors = registry.counter('tracehook_rpc_errors_total', 'JSON-RPC calls answered with an error, by method and code.', ['network', 'method', 'code']);
  const latency = registry.histogram(
    'tracehook_rpc_call_duration_seconds',
    'Time from admission to result of one JSON-RPC call, by method and outcome.',
    ['network', 'method', 'outcome'],
    LATENCY_BUCKETS_SEC,
  );
  const traces = registry.histogram('tracehook_trace_duration_seconds', 'Duration of trace_* and debug_trace* calls.', ['method'], LATENCY_BUCKETS_SEC);
  const units = registry.counter('tracehook_compute_units_total', 'Compute units admitted, by key tier.', ['tier']);
  const limited = registry.counter('tracehook_rate_limited_total', 'Requests refused with HTTP 429, by key tier.', ['tier']);
  const fastPath = registry.counter('tracehook_http_fast_path_requests_total', 'JSON-RPC requests answered by the keep-alive fast path (the others went through node:http).', []).labels([]);
  const handOffs = registry.counter('tracehook_http_fast_path_handoffs_total', 'Connections the fast path handed to node:http (another route, or an unusual request).', []).labels([]);
  registry.gauge('tracehook_process_resident_memory_bytes', 'Resident set size of the process.', () => [{ value: process.memoryUsage.rss() }]);
  registry.gauge('tracehook_nodejs_heap_used_bytes', 'V8 heap in use.', () => [{ value: process.memoryUsage().heapUsed }]);
  registry.gauge('tracehook_nodejs_heap_total_bytes', 'V8 heap reserved (used and free).', () => [{ value: process.memoryUsage().heapTotal }]);
  registry.gauge('tracehook_nodejs_external_bytes', 'Memory outside the V8 heap held by JavaScript objects (Buffers, WebAssembly memories).', () => [{ value: process.memoryUsage().external }]);

  const httpSeries = memo((route: string, status: number) => http.labels([route, String(status)]));
  const callSeries = memo((networkAndMethod: string, code: number): CallSeries => {
    const [network, method] = networkAndMethod.split('\u0000') as [string, string];
    const codeText = String(code);
    return {
      calls: calls.labels([network, method, codeText]),
      errors: code === 0 ? undefined : errors.labels([network, method, codeText]),
      latency: latency.labels([network, method, code === 0 ? 'ok' : 'error']),
      trace: isTraceMethod(method) ? traces.labels([method]) : undefined,
    };
  });
  // Interned "network\0method" keys, so the hot path does not build a string per call.
  const keyOf = memo((network: string, method: string) => `${network}\u0000${method}`);
  const unitsByTier = new Map<ApiKeyTier, CounterChild>();
  const limitedByTier = new Map<ApiKeyTier, CounterChild>();
  const byTier = (cache: Map<ApiKeyTier, CounterChild>, counter: typeof units, tier: ApiKeyTier) => {
    let child = cache.get(tier);
    if (!child) cache.set(tier, (child = counter.labels([tier])));
    return child;
  };

  return {
    registry,
    httpResponse(route, status) {
      httpSeries(route, status).inc();
    },
    rpcCall(network, method, code, seconds) {
      const s = callSeries(keyOf(network, method), code);
      s.calls.inc();
      s.errors?.inc();
      s.latency.observe(seconds);
      s.trace?.observe(seconds);
    },
    computeUnits(tier, n) {
      if (n > 0) byTier(unitsByTier, units, tier).inc(n);
    },
    rateLimited(tier) {
      byTier(limitedByTier, limited, tier).inc();
    },
    fastPathRequest() {
      fastPath.inc();
    },
    handedOff() {
      handOffs.inc();
    },
  };
}
