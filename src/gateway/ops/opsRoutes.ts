// `/healthz`, `/readyz` and `/metrics` as routes of the management kit, mounted at the root beside
// `/api`; what they report comes from health.ts and the metrics registry.
import { ApiReply, type ApiRoute } from '../../http/api/apiRoute.js';
import { checkReadiness, type ReadinessCheck } from './health.js';
import type { MetricsRegistry } from './metricsRegistry.js';
import { PROMETHEUS_CONTENT_TYPE } from './metricsRegistry.js';

export interface OpsRoutesOptions {
  readiness: readonly ReadinessCheck[];
  readyTimeoutMs: number;
  /** True once the gateway is shutting down: not ready. */
  closing(): boolean;
  registry: MetricsRegistry;
  /** `/metrics` asks for the auth token. */
  metricsRequireToken: boolean;
  /** Extra fields of `/readyz`'s body (e.g. each upstream network's table). */
  details?: () => Record<string, unknown>;
}

const TAG = 'Operations';
const READINESS_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not ready', 'shutting down'] },
    checks: { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'failing'] }, description: 'store, each network, and any other part' },
    networks: { type: 'array', items: { type: 'object' }, description: 'each upstream network: head, finalized, and each upstream\'s state, head lag and probed capabilities (no origins: GET /api/upstreams has them)' },
  },
};

export function createOpsRoutes(options: OpsRoutesOptions): ApiRoute[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'Liveness: the process answers.',
      tag: TAG,
      auth: false,
      response: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } },
      handle: async () => ({ status: 'ok' }),
    },
    {
      method: 'GET',
      path: '/readyz',
      operationId: 'readyz',
      summary: 'Readiness: the store and every network answer, and the service is not shutting down (503 otherwise, with the same body).',
      tag: TAG,
      auth: false,
      response: READINESS_SCHEMA,
      errors: { 503: 'Not ready: a check is failing or the service is shutting down' },
      async handle() {
        if (options.closing()) return new ApiReply(503, { status: 'shutting down', checks: {} });
        const report = await checkReadiness(options.readiness, options.readyTimeoutMs);
        return new ApiReply(report.ready ? 200 : 503, { status: report.ready ? 'ready' : 'not ready', checks: report.checks, ...options.details?.() });
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus text: requests, errors and latency per method and status, compute units per tier, trace durations.',
      tag: TAG,
      auth: options.metricsRequireToken,
      contentType: PROMETHEUS_CONTENT_TYPE,
      response: { type: 'string' },
      handle: async () => new ApiReply(200, options.registry.render(), { 'Content-Type': PROMETHEUS_CONTENT_TYPE }),
    },
  ];
}
