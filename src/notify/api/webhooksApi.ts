// The webhooks management API: its route table (webhooks, deliveries, signing keys and any extra
// routes) over the deps they share. Token, body reading, errors and the OpenAPI document are the
// management kit's (http/api/createApiApp.ts); it owns every `/api/*` path except `/api/keys…`.
import type { SqlDatabase } from '../../store/sql.js';
import type { HttpRoute } from '../../http/route.js';
import { createApiApp } from '../../http/api/createApiApp.js';
import { silentLogger, type NotifyLogger } from '../notifyLogger.js';
import { createWebhookIds, type RandomBytes } from '../webhooks/webhookIds.js';
import { createWebhookRepository } from '../webhooks/webhookRepository.js';
import type { WebhookTier } from '../webhooks/webhookTypes.js';
import type { ApiDeps, ApiRoute } from './apiRoute.js';
import { createNotifyRoutes } from './notifyRoutes.js';
import { createDeliveryRoutes } from './deliveryRoutes.js';
import { createSigningKeyRoutes } from './signingKeyRoute.js';
import { createTestUrlRoutes } from './testUrlRoute.js';
import { createValidateQueryRoutes } from './validateQueryRoute.js';

export interface WebhooksApiOptions {
  db: SqlDatabase;
  /** The process's notifier (URL policy, outbox append, wake, clock, retry window). */
  notifier: ApiDeps['notifier'] & { tier?: WebhookTier };
  /** The management auth token (X-Service-Token or X-Alchemy-Token). Secret: never logged. */
  authToken: string;
  /** Network names webhooks may be created on (those a follower serves). Default ['ETH_MAINNET']. */
  networks?: readonly string[];
  /** Tier of the auth token, for the webhook count limit. Default: the notifier's tier, else enterprise. */
  tier?: WebhookTier;
  randomBytes?: RandomBytes;
  logger?: NotifyLogger;
  /** Largest request body (100 000 addresses need about 5 MB). Default 8 MiB. */
  maxBodyBytes?: number;
  bodyTimeoutMs?: number;
  /** Mount point. Default `/api`. */
  prefix?: string;
  /** Shown in the OpenAPI document. */
  version?: string;
  /**
   * More endpoints under the same prefix, token and error handling (e.g. the follower's backfill
   * request); built with `defineRoute` and the same deps, and listed in the OpenAPI document.
   */
  extraRoutes?: (deps: ApiDeps) => ApiRoute[];
  /** Called after a backfill request (`from_block`, backfill-webhook) is committed: wake the follower. */
  onBackfillRequested?: () => void;
}

/** True for paths this API answers: everything under the prefix except the keys API. */
export function isWebhooksApiPath(pathname: string, prefix = '/api'): boolean {
  if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return false;
  const rest = pathname.slice(prefix.length);
  return !(rest === '/keys' || rest.startsWith('/keys/'));
}

/** What the route table needs; the rest of WebhooksApiOptions is for serving it on its own. */
export type WebhooksApiRoutesOptions = Pick<WebhooksApiOptions, 'db' | 'notifier' | 'networks' | 'tier' | 'randomBytes' | 'extraRoutes' | 'onBackfillRequested'>;

/** The route table alone: the gateway mounts it in its one management app. */
export function createWebhooksApiRoutes(options: WebhooksApiRoutesOptions): ApiRoute[] {
  const deps: ApiDeps = {
    db: options.db,
    repo: createWebhookRepository(options.db),
    notifier: options.notifier,
    ids: createWebhookIds(options.randomBytes),
    networks: options.networks ?? ['ETH_MAINNET'],
    tier: options.tier ?? options.notifier.tier ?? 'enterprise',
    onBackfillRequested: options.onBackfillRequested,
  };
  return [...createNotifyRoutes(deps), ...createDeliveryRoutes(deps), ...createSigningKeyRoutes(deps), ...createTestUrlRoutes(deps), ...createValidateQueryRoutes(), ...(options.extraRoutes?.(deps) ?? [])];
}

/** The route table served on its own app (tests, embedding); the service uses createWebhooksApiRoutes. */
export function createWebhooksApi(options: WebhooksApiOptions): HttpRoute & { routes: readonly ApiRoute[] } {
  const prefix = options.prefix ?? '/api';
  const routes = createWebhooksApiRoutes(options);
  const app = createApiApp({
    mounts: [{ prefix, routes }],
    authToken: options.authToken,
    clock: options.notifier.clock,
    maxBodyBytes: options.maxBodyBytes,
    bodyTimeoutMs: options.bodyTimeoutMs,
    version: options.version,
    logger: options.logger ?? silentLogger,
  });
  return { prefix, routes, handle: app.handle };
}
