// Every setting of the gateway with its default, in one place. The lead's config layer maps
// service options onto this; nothing else in the gateway has its own defaults for these.
import type { Logger } from 'pino';
import type { ApiKeyRepository } from '../store/types.js';
import type { ApiRoute } from '../http/api/apiRoute.js';
import type { Clock } from './clock.js';
import type { CorsOptions } from './cors.js';
import type { KeyCacheOptions } from './keys/keyCache.js';
import type { ReadinessCheck } from './ops/health.js';
import type { CostTableOptions } from './policy/computeUnits.js';
import type { TierPolicyOptions } from './policy/tiers.js';
import type { RateLimiter } from './policy/tokenBucket.js';
import type { NetworkOptions } from './router/networkRouter.js';
import type { WebSocketLimits } from './websocket/wsLimits.js';
import type { DashboardOptions } from '../dashboard/createDashboardServer.js';
import type { InternalEndpointOptions } from './internalEndpoint.js';

export interface GatewayLimits {
  /** Largest request body; larger answers HTTP 413. */
  maxBodyBytes: number;
  /** Most elements in one batch; more answers HTTP 413. */
  maxBatchSize: number;
  /** Largest answer of one batch; elements past it answer -32005 and the batch's other calls are cancelled. */
  maxResponseBytes: number;
  /** Deadline for the request headers (slowloris guard). */
  headersTimeoutMs: number;
  /** Deadline for receiving the whole request, body included; slower answers HTTP 408. */
  requestTimeoutMs: number;
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: number;
  /** How long close() waits for in-flight requests before cutting connections. */
  drainTimeoutMs: number;
  /** Per-check timeout of `/readyz`. */
  readyTimeoutMs: number;
  /** Cap on open connections (excess are dropped by the OS accept loop); undefined for none. */
  maxConnections?: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxBodyBytes: 5 * 1024 * 1024,
  maxBatchSize: 1000,
  maxResponseBytes: 128 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  drainTimeoutMs: 10_000,
  readyTimeoutMs: 2_000,
};

export interface GatewayOptions {
  /** Served networks; the first also answers `/v2/<key>`, each answers `/<name>/v2/<key>`. */
  networks: NetworkOptions[];
  /** Where keys and usage live (the service store's `keys` repository). */
  store: { keys: ApiKeyRepository };
  /** Token for the management API (everything under `/api` but its OpenAPI document) and, if enabled, `/metrics`. */
  authToken?: string;
  logger: Logger;
  clock?: Clock;
  /** Method → minimum tier rules and per-tier compute-unit budgets. */
  tiers?: TierPolicyOptions;
  /** Method → compute-unit cost. */
  computeUnits?: CostTableOptions;
  limits?: Partial<GatewayLimits>;
  /** Bounds of the WebSocket endpoint (websocket/wsLimits.ts); messages are capped at `limits.maxBodyBytes` unless set. */
  websocket?: Partial<WebSocketLimits>;
  /** CORS of the JSON-RPC endpoint (default: any origin). */
  cors?: CorsOptions;
  /** CORS of every other path: the management API under `/api`, health, metrics (default: none). */
  apiCors?: CorsOptions;
  /** More management routes under `/api`, beside `/api/keys` (the webhooks API's, …), on the same router and document. */
  apiRoutes?: readonly ApiRoute[];
  /** Version shown in the OpenAPI document. */
  apiVersion?: string;
  /** Serve the web dashboard at `/` (sign-in sessions accepted by the management API). Absent: no dashboard. */
  dashboard?: DashboardOptions;
  keyCache?: Omit<KeyCacheOptions, 'repo' | 'clock'>;
  /** How often usage counts and last-used times are written to the store. */
  usageFlushIntervalMs?: number;
  /** Replaces the in-process token buckets (e.g. with one shared across processes). */
  rateLimiter?: RateLimiter;
  /** Require the auth token on `/metrics` too (default: open, as Prometheus scrapers expect). */
  metricsRequireToken?: boolean;
  /** Log level of the one-line access log per request (`silent` for none). Default `debug`. */
  accessLogLevel?: 'trace' | 'debug' | 'info' | 'silent';
  /**
   * Serve plain keep-alive JSON-RPC requests on the fast path (fastPath/createFastFront.ts) rather
   * than through node:http's request objects. Default true; false for node:http alone.
   */
  fastPath?: boolean;
  /** More `/readyz` checks besides the store and the networks. */
  readinessChecks?: ReadinessCheck[];
  /**
   * Serve one network (the embedded chain's) at `POST /internal/<network>` to the deployment's other
   * processes: the auth token in X-Service-Token instead of an API key, no compute units charged.
   */
  internal?: InternalEndpointOptions;
  /** Extra fields of `/readyz`'s body, read at each request. */
  readinessDetails?: () => Record<string, unknown>;
}
