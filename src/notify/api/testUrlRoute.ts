// `POST /api/test-webhook-url`: the dashboard's Test Webhook button. Sends one signed test
// notification (`event.test = true`) straight to the URL in the form, through the same URL policy
// (SSRF checks on the name and on every resolved address) and signing as real deliveries, and
// answers with the listener's status, latency and the start of its answer, within the deadline of
// a delivery attempt (--webhook-timeout-ms). Nothing is stored.
import { z } from 'zod';
import { createNotificationSender } from '../deliver/sendNotification.js';
import { notificationHeaders } from '../deliver/signNotification.js';
import { serializeNotification } from '../outbox/notificationBody.js';
import { WEBHOOK_TYPES, signingKeysAt } from '../webhooks/webhookTypes.js';
import { sampleSubject, testNotificationEvent } from '../webhooks/testNotification.js';
import { defineRoute, type ApiDeps, type ApiRoute } from './apiRoute.js';
import { loadWebhook } from './apiQuery.js';
import { invalidField } from './apiSchemas.js';

const PREVIEW_BYTES = 512;

const TestUrlBody = z.object({
  webhook_url: z.string({ error: 'is required' }).min(1, { error: 'is required' }),
  /** Sign with this webhook's keys and use its type and network; absent (a form not saved yet): a one-off key. */
  webhook_id: z.string({ error: 'must be a string' }).optional(),
  webhook_type: z.enum(WEBHOOK_TYPES, { error: `must be one of ${WEBHOOK_TYPES.join(', ')}` }).optional(),
});

export function createTestUrlRoutes(deps: ApiDeps): ApiRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/test-webhook-url',
      operationId: 'test-webhook-url',
      summary: "Send one signed test notification (event.test = true) to webhook_url now and return the listener's status, latency and the start of its answer. Not recorded.",
      tag: 'Deliveries',
      body: TestUrlBody,
      response: {
        type: 'object',
        required: ['data'],
        properties: {
          data: {
            type: 'object',
            properties: {
              status_code: { type: ['integer', 'null'], description: 'null: no answer (error says why)' },
              latency_ms: { type: 'integer' },
              response_body: { type: ['string', 'null'], description: `first ${PREVIEW_BYTES} bytes of the answer` },
              error: { type: ['string', 'null'] },
              signed_with: { type: 'string', enum: ['webhook', 'one-off key'] },
            },
          },
        },
      },
      async handle({ body, nowMs }) {
        const webhook = body.webhook_id ? await loadWebhook(deps.repo, body.webhook_id) : undefined;
        const reason = await deps.notifier.urlPolicy.check(body.webhook_url);
        if (reason) throw invalidField('webhook_url', reason);
        const type = webhook?.type ?? body.webhook_type ?? 'ADDRESS_ACTIVITY';
        const network = webhook?.network ?? deps.networks[0] ?? 'ETH_MAINNET';
        const event = testNotificationEvent(type, network, webhook ? await sampleSubject(deps.repo, webhook) : {});
        const eventId = deps.ids.eventId();
        const text = serializeNotification({ webhookId: webhook?.id ?? 'wh_test', id: eventId, createdAt: new Date(nowMs).toISOString(), type, event });
        const keys = webhook ? signingKeysAt(webhook, nowMs) : [deps.ids.signingKey()];
        const bytes = Buffer.from(text, 'utf8');
        const sender = createNotificationSender({ timeoutMs: deps.notifier.fetchTimeoutMs, urlPolicy: deps.notifier.urlPolicy, storedResponseBytes: PREVIEW_BYTES, maxSocketsPerHost: 1 });
        try {
          const result = await sender.send(body.webhook_url, bytes, notificationHeaders(eventId, bytes, keys, nowMs, 'Tracehook-Webhooks/1 (test)'));
          return { data: { status_code: result.statusCode, latency_ms: result.latencyMs, response_body: result.responseBody, error: result.error, signed_with: webhook ? 'webhook' : 'one-off key' } };
        } finally {
          sender.close();
        }
      },
    }),
  ];
}
