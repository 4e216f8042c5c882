// `POST /api/backfill-webhook`: re-runs a webhook's filter over history from `from_block`, in block
// order, then live blocks resume; `GET /api/backfill-status`: how far it got (both mounted through
// the webhooks API's `extraRoutes`). The request is stored and the follower woken: it takes the
// request up between blocks, so nothing races with block processing.
import { z } from 'zod';
import { quantityToHex } from '../../rpc/hex.js';
import { defineRoute, type ApiDeps, type ApiRoute } from '../api/apiRoute.js';
import { WEBHOOK_ID_PARAM, loadWebhook, queryWebhookId } from '../api/apiQuery.js';
import { BlockNumberParam } from '../api/apiSchemas.js';
import { readBackfillProgress, readCursor, requestBackfill } from './followerStore.js';

export const BackfillWebhookBody = z.object({
  webhook_id: z.string({ error: 'is required' }).min(1, { error: 'is required' }),
  from_block: BlockNumberParam,
});

const HEX_OR_NULL = { type: ['string', 'null'] } as const;
const hexOrNull = (n: bigint | null | undefined) => (n === null || n === undefined || n < 0n ? null : quantityToHex(n));

/** The follower's extra management routes, for `createWebhooksApi({ extraRoutes })`. */
export function createFollowerRoutes(deps: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/backfill-webhook',
      operationId: 'backfill-webhook',
      summary:
        'Replay a webhook from a past block: its filter runs again over blocks from_block…current in order (one notification per block as live), then live blocks resume. It starts at once; GET /backfill-status shows how far it got. A reorg after that retracts as usual.',
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
              current_block: { ...HEX_OR_NULL, description: 'block the follower has processed (hex); the replay runs up to it, then live blocks follow' },
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
        deps.onBackfillRequested?.();
        return { data: { webhook_id: webhook.id, network: webhook.network, from_block: quantityToHex(fromBlock), current_block: hexOrNull(current?.number) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/backfill-status',
      operationId: 'backfill-status',
      summary: 'Progress of a webhook\'s backfill: pending (requested, not yet taken up), running (next_block…end_block still to send) or done.',
      tag: 'Deliveries',
      query: [WEBHOOK_ID_PARAM],
      response: {
        type: 'object',
        properties: {
          data: {
            type: 'object',
            properties: {
              webhook_id: { type: 'string' },
              state: { type: 'string', enum: ['pending', 'running', 'done'] },
              done: { type: 'boolean' },
              requested_from: { ...HEX_OR_NULL, description: 'from_block of a request not yet taken up' },
              next_block: { ...HEX_OR_NULL, description: 'next history block to send' },
              end_block: { ...HEX_OR_NULL, description: 'last history block (live blocks follow)' },
              remaining_blocks: { type: ['integer', 'null'] },
              current_block: { ...HEX_OR_NULL, description: 'block the follower has processed' },
            },
          },
        },
      },
      async handle({ query }) {
        const webhook = await loadWebhook(deps.repo, queryWebhookId(query));
        const progress = await readBackfillProgress(deps.db, webhook.id);
        const cursor = await readCursor(deps.db, webhook.network);
        const state = progress.next !== null ? 'running' : progress.requestedFrom !== null ? 'pending' : 'done';
        return {
          data: {
            webhook_id: webhook.id,
            state,
            done: state === 'done',
            requested_from: hexOrNull(progress.requestedFrom),
            next_block: hexOrNull(progress.next),
            end_block: hexOrNull(progress.end),
            remaining_blocks: progress.next !== null && progress.end !== null ? Number(progress.end - progress.next + 1n) : null,
            current_block: hexOrNull(cursor?.number),
          },
        };
      },
    }),
  ];
}
