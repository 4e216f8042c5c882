// Management API for the upstream nodes behind each network, a route of the management kit
// (mounted at `/api`): GET /upstreams lists every network with its upstreams' probed capabilities,
// head, health and state. Same conventions as /api/keys (snake_case, `{data}`); the token is the
// kit's. Probing and health are the pool's (backends/upstream/networkUpstreams.ts).
import { defineApiRoute, type ApiRoute } from '../../http/api/apiRoute.js';
import type { NetworkStatus, UpstreamStatus } from '../../backends/upstream/networkUpstreams.js';

export interface UpstreamsRoutesOptions {
  /** Every network served by upstreams, read at each request. */
  networks(): readonly NetworkStatus[];
}

const TAG = 'Upstreams';
const FLAGS = { type: 'object', additionalProperties: { type: 'boolean' } } as const;
const OPT_STRING = { type: ['string', 'null'] } as const;
const UPSTREAM_SCHEMA = {
  type: 'object',
  required: ['label', 'origin', 'weight', 'state', 'methods', 'tracers', 'trace_types', 'latency_ms', 'error_rate', 'requests', 'failures'],
  properties: {
    label: { type: 'string', description: '<NETWORK>#<index>, the name used in logs, errors and metrics' },
    origin: { type: 'string', description: 'scheme, host and port of the URL (no credentials, path or query)' },
    weight: { type: 'number' },
    state: { type: 'string', enum: ['healthy', 'lagging', 'cooling', 'forked', 'unreachable', 'wrong-chain'] },
    chain_id: OPT_STRING,
    client_version: OPT_STRING,
    head: { ...OPT_STRING, description: 'block number, decimal' },
    head_lag_blocks: { type: ['integer', 'null'] },
    finalized: OPT_STRING,
    state_from: { ...OPT_STRING, description: 'oldest block whose state it serves; "0" for an archive node' },
    archive: { type: ['boolean', 'null'] },
    methods: { ...FLAGS, description: 'probed trace_* and debug_trace* methods it answers' },
    tracers: { ...FLAGS, description: 'callTracer, prestateTracer, flatCallTracer, structLogger' },
    trace_types: { ...FLAGS, description: 'trace, stateDiff, vmTrace' },
    latency_ms: { type: 'number', description: 'moving average' },
    error_rate: { type: 'number', description: 'moving average, 0..1' },
    requests: { type: 'integer' },
    failures: { type: 'integer' },
    cooling_until: { ...OPT_STRING, format: 'date-time' },
    last_error: OPT_STRING,
    probed_at: { ...OPT_STRING, format: 'date-time' },
    probe_error: OPT_STRING,
  },
} as const;
const NETWORK_SCHEMA = {
  type: 'object',
  required: ['network', 'ready', 'upstreams'],
  properties: {
    network: { type: 'string' },
    chain_id: OPT_STRING,
    head: { type: ['object', 'null'], properties: { number: { type: 'string' }, hash: { type: 'string' } } },
    finalized: OPT_STRING,
    ready: { type: 'boolean', description: 'at least one upstream is healthy and on the network\'s chain' },
    upstreams: { type: 'array', items: UPSTREAM_SCHEMA },
    trace_paths: {
      type: ['object', 'null'],
      additionalProperties: { type: 'string', enum: ['native', 'translated', 'executed', 'unsupported'] },
      description: 'which path each trace method takes on the network, keyed `method`, `method/<trace type>` or `method/<tracer>`: native (an upstream has it), translated (from the other trace family), executed (the embedded engine on an upstream\'s state), unsupported',
    },
  },
} as const;

/** One upstream row as the API shows it (snake_case, null for what is not known). */
export function upstreamView(u: UpstreamStatus) {
  return {
    label: u.label,
    origin: u.origin,
    weight: u.weight,
    state: u.state,
    chain_id: u.chainId ?? null,
    client_version: u.clientVersion ?? null,
    head: u.head ?? null,
    head_lag_blocks: u.headLagBlocks ?? null,
    finalized: u.finalized ?? null,
    state_from: u.stateFrom ?? null,
    archive: u.archive ?? null,
    methods: u.methods,
    tracers: u.tracers,
    trace_types: u.traceTypes,
    latency_ms: u.latencyMs,
    error_rate: u.errorRate,
    requests: u.requests,
    failures: u.failures,
    cooling_until: u.coolingUntil ?? null,
    last_error: u.lastError ?? null,
    probed_at: u.probedAt ?? null,
    probe_error: u.probeError ?? null,
  };
}

/** One network as the API shows it. */
export function networkView(n: NetworkStatus) {
  return { network: n.network, chain_id: n.chainId ?? null, head: n.head ?? null, finalized: n.finalized ?? null, ready: n.ready, upstreams: n.upstreams.map(upstreamView), trace_paths: n.tracePaths ?? null };
}

/**
 * The network as `/readyz` shows it, unauthenticated: the API's view narrowed to states, heads and
 * capabilities, without origins, client versions, error texts or trace paths (GET /api/upstreams,
 * behind the token, has those).
 */
export function readyzNetworkView(n: NetworkStatus) {
  const { network, chain_id, head, finalized, ready, upstreams } = networkView(n);
  return {
    network,
    chain_id,
    head: head?.number ?? null,
    finalized,
    ready,
    upstreams: upstreams.map(({ label, state, head, head_lag_blocks, archive, methods, tracers, trace_types }) => ({ label, state, head, head_lag_blocks, archive, methods, tracers, trace_types })),
  };
}

export function createUpstreamsRoutes(options: UpstreamsRoutesOptions): ApiRoute[] {
  return [
    defineApiRoute({
      method: 'GET',
      path: '/upstreams',
      operationId: 'list-upstreams',
      summary: 'Every network served by upstream nodes, with each upstream\'s probed capabilities, head, health and state.',
      tag: TAG,
      response: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: NETWORK_SCHEMA } } },
      async handle() {
        return { data: options.networks().map(networkView) };
      },
    }),
  ];
}
