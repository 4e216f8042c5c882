// `GET /api/webhook-signing-key`: the one place besides creation and rotation that shows a
// webhook's signing key, asked for explicitly by id (listings never carry it).
import { defineRoute, type ApiDeps, type ApiRoute } from './apiRoute.js';
import { WEBHOOK_ID_PARAM, loadWebhook, queryWebhookId } from './apiQuery.js';

export function createSigningKeyRoutes(deps: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/webhook-signing-key',
      operationId: 'webhook-signing-key',
      summary: 'Reveal the current signing key of one webhook (listings and updates never include it).',
      tag: 'Deliveries',
      query: [WEBHOOK_ID_PARAM],
      response: {
        type: 'object',
        properties: {
          data: {
            type: 'object',
            required: ['webhook_id', 'signing_key'],
            properties: {
              webhook_id: { type: 'string' },
              signing_key: { type: 'string', description: 'HMAC key of X-Service-Signature (secret)' },
              previous_signing_key_expires_at: { type: ['integer', 'null'], description: 'until then the previous key also signs' },
            },
          },
        },
      },
      async handle({ query, nowMs }) {
        const webhook = await loadWebhook(deps.repo, queryWebhookId(query));
        const expires = webhook.previousKeyExpiresAt !== null && webhook.previousKeyExpiresAt > nowMs ? webhook.previousKeyExpiresAt : null;
        return { data: { webhook_id: webhook.id, signing_key: webhook.signingKey, previous_signing_key_expires_at: expires } };
      },
    }),
  ];
}
