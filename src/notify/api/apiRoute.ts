// The webhooks API's endpoints are routes of the shared management kit (http/api/apiRoute.ts);
// this adds what they are built from (ApiDeps) and the error answers the document lists for them.
import type { SqlDatabase } from '../../store/sql.js';
import { defineApiRoute, type ApiRoute, type RouteSpec } from '../../http/api/apiRoute.js';
import type { Notifier } from '../createNotifier.js';
import type { WebhookIds } from '../webhooks/webhookIds.js';
import type { WebhookRepository } from '../webhooks/webhookRepository.js';
import type { WebhookTier } from '../webhooks/webhookTypes.js';

export type { ApiInput, ApiRoute, HttpMethod, QueryParamDoc } from '../../http/api/apiRoute.js';

/** Everything the handlers use. */
export interface ApiDeps {
  db: SqlDatabase;
  repo: WebhookRepository;
  notifier: Pick<Notifier, 'appendEvents' | 'wake' | 'urlPolicy' | 'retryWindowMs' | 'fetchTimeoutMs' | 'clock' | 'retention'>;
  ids: WebhookIds;
  networks: readonly string[];
  tier: WebhookTier;
  /** Called after a backfill request is committed, so the follower takes it up at once. */
  onBackfillRequested?: () => void;
}

/** A webhooks API route: every one but listing and creation names a webhook that may be unknown (404). */
export function defineRoute<B = undefined>(spec: RouteSpec<B>): ApiRoute {
  const errors: Record<number, string> =
    spec.path === '/create-webhook'
      ? { 403: 'Webhook limit of the tier reached' }
      : spec.path === '/team-webhooks'
        ? {}
        : { 404: 'Unknown webhook or event id' };
  return defineApiRoute({ errors, ...spec });
}
