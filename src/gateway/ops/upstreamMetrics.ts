// Prometheus gauges for the upstream pools, read from each network's status() at scrape time: state,
// head and lag, latency and error rate, calls and failures, and the probed capability table.
// Nothing here is on the request path; the pool keeps the numbers (backends/upstream/).
import type { NetworkStatus } from '../../backends/upstream/networkUpstreams.js';
import type { MetricsRegistry } from './metricsRegistry.js';

type Sample = { labels?: Record<string, string>; value: number };

/** Registers the `tracehook_upstream_*` and `tracehook_network_*` gauges over `networks()`. */
export function registerUpstreamMetrics(registry: MetricsRegistry, networks: () => readonly NetworkStatus[]): void {
  const perUpstream = (value: (u: NetworkStatus['upstreams'][number]) => number | undefined) => (): Sample[] => {
    const out: Sample[] = [];
    for (const n of networks()) {
      for (const u of n.upstreams) {
        const v = value(u);
        if (v !== undefined) out.push({ labels: { network: n.network, upstream: u.label }, value: v });
      }
    }
    return out;
  };
  registry.gauge('tracehook_upstream_up', 'Whether the upstream is healthy (1) or not (0); see tracehook_upstream_state for why.', perUpstream((u) => (u.state === 'healthy' ? 1 : 0)));
  registry.gauge('tracehook_upstream_state', 'The upstream\'s current state (healthy, lagging, cooling, forked, unreachable, wrong-chain), 1 on the current one.', () =>
    networks().flatMap((n) => n.upstreams.map((u) => ({ labels: { network: n.network, upstream: u.label, state: u.state }, value: 1 }))),
  );
  registry.gauge('tracehook_upstream_head_block', 'Latest block number the upstream reported.', perUpstream((u) => (u.head === undefined ? undefined : Number(u.head))));
  registry.gauge('tracehook_upstream_head_lag_blocks', 'Blocks the upstream trails the network\'s head.', perUpstream((u) => u.headLagBlocks));
  registry.gauge('tracehook_upstream_latency_ms', 'Moving average of the upstream\'s answer time, in ms.', perUpstream((u) => u.latencyMs));
  registry.gauge('tracehook_upstream_error_rate', 'Moving average of the upstream\'s failed calls, 0..1.', perUpstream((u) => u.errorRate));
  registry.gauge('tracehook_upstream_calls', 'Scored calls to the upstream since start: routed calls, and failed head polls and probes.', perUpstream((u) => u.requests));
  registry.gauge('tracehook_upstream_failures', 'Failed calls to the upstream since start.', perUpstream((u) => u.failures));
  registry.gauge('tracehook_upstream_capability', 'Probed capability table: 1 when the upstream answers the method (capability="trace_block"), tracer ("tracer:callTracer") or trace type ("traceType:vmTrace"), 0 when not.', () => {
    const out: Sample[] = [];
    for (const n of networks()) {
      for (const u of n.upstreams) {
        const add = (capability: string, yes: boolean | undefined) => {
          if (yes !== undefined) out.push({ labels: { network: n.network, upstream: u.label, capability }, value: yes ? 1 : 0 });
        };
        for (const [m, yes] of Object.entries(u.methods)) add(m, yes);
        for (const [t, yes] of Object.entries(u.tracers)) add(`tracer:${t}`, yes);
        for (const [t, yes] of Object.entries(u.traceTypes)) add(`traceType:${t}`, yes);
      }
    }
    return out;
  });
  registry.gauge('tracehook_network_head_block', 'The network\'s canonical head (from its best healthy upstream).', () =>
    networks().flatMap((n) => (n.head ? [{ labels: { network: n.network }, value: Number(n.head.number) }] : [])),
  );
  registry.gauge('tracehook_network_finalized_block', 'The network\'s finalized block.', () => networks().flatMap((n) => (n.finalized ? [{ labels: { network: n.network }, value: Number(n.finalized) }] : [])));
  registry.gauge('tracehook_network_ready', 'Whether at least one upstream of the network is healthy and on its chain.', () => networks().map((n) => ({ labels: { network: n.network }, value: n.ready ? 1 : 0 })));
}
