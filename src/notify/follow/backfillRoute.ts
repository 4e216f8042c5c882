// `POST /api/backfill-webhook`: re-runs a webhook's filter over history from `from_block`, in block
// order, then live blocks resume (mounted through the webhooks API's `extraRoutes`). The request is
// stored; the follower picks it up at its next block, so nothing races with block processing.
import { z } from 'zod';
import { quantityToHex } from '../../rpc/hex.js';
import { defineRoute, type ApiDeps, type ApiRoute } from '../api/apiRoute.js';
import { loadWebhook } from '../api/apiQuery.js';
import { BlockNumberParam } from '../api/apiSchemas.js';
import { readCursor, requestBackfill } from './followerStore.js';

export const BackfillWebhookBody = z.object({
  webhook_id: z.string({ error: 'is required' }).min(1, { error: 'is required' }),
  from_block: BlockNumberParam,
});

/** The follower's extra management routes, for `createWebhooksApi({ extraRoutes })`. */
export function createFollowerRoutes(deps: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/backfill-webhook',
      operationId: 'backfill-webhook',
      summary:
        'Replay a webhook from a past block: its filter runs again over blocks from_block…current in order (one notification per block as live), then live blocks resume. A reorg after that retracts as usual.',
      tag: 'Deliveries',
      body: BackfillWebhookBody,
      response: {
        type: 'object',
        properties: {
          data: {
            type: 'object',
            properties: {
              webhook_id: { type: 'string' },
              network: { type: 'string' },
              from_block: { type: 'string', description: 'hex block number' },
              current_block: { type: ['string', 'null'], description: 'block the follower has processed (hex); the replay runs up to the block it processes next' },
            },
          },
        },
      },
      async handle({ body, nowMs }) {
        const webhook = await loadWebhook(deps.repo, body.webhook_id);
        const fromBlock = BigInt(body.from_block);
        const current = await deps.db.transaction(async (tx) => {
          await requestBackfill(tx, { webhookId: webhook.id, network: webhook.network, fromBlock, nowMs });
          return readCursor(tx, webhook.network);
        });
        return { data: { webhook_id: webhook.id, network: webhook.network, from_block: quantityToHex(fromBlock), current_block: current && current.number >= 0n ? quantityToHex(current.number) : null } };
      },
    }),
  ];
}
