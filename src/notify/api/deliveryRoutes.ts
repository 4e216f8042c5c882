// Our endpoints beyond the provider's API: delivery log, events with their state, replay, test
// notification, signing-key rotation, pause and resume.
import { RpcError, ResourceNotFoundError } from '../../rpc/errors.js';
import { getEvent, listAttempts, listEvents, replayEvent, replayFailedSince, type AttemptRecord, type EventRecord } from '../outbox/deliveryLog.js';
import type { DeliveryStatus } from '../outbox/recordAttempt.js';
import { sampleSubject, testNotificationEvent } from '../webhooks/testNotification.js';
import type { RetentionPolicy } from '../outbox/pruneFinished.js';
import { defineRoute, type ApiDeps, type ApiRoute } from './apiRoute.js';
import { ReplayEventBody, ReplayFailedBody, RotateKeyBody, WebhookIdBody, invalidField } from './apiSchemas.js';
import { PAGE_PARAMS, PAGINATION_SCHEMA, WEBHOOK_ID_PARAM, loadWebhook, pagination, queryPage, queryWebhookId } from './apiQuery.js';
import { WIRE_WEBHOOK_SCHEMA, webhookToWire } from './webhookToWire.js';

const DEFAULT_GRACE_PERIOD_SEC = 24 * 3600;
const STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
function duration(ms: number | null): string {
  if (ms === null) return 'forever';
  if (ms % 86_400_000 === 0) return ms === 86_400_000 ? '1 day' : `${ms / 86_400_000} days`;
  return `${ms / 1000} s`;
}

/** 404 for an event that is not there; it may have been pruned, so the retention is named. */
function noEvent(eventId: string, webhookId: string, policy: RetentionPolicy): ResourceNotFoundError {
  return new ResourceNotFoundError(
    `event_id: no event ${eventId} on webhook ${webhookId} (delivered events are kept ${duration(policy.deliveredMs)}, failed ones ${duration(policy.deadLetterMs)})`,
    { httpStatus: 404, data: { field: 'event_id' } },
  );
}

const data = (schema: object) => ({ type: 'object', required: ['data'], properties: { data: schema } });

function attemptToWire(a: AttemptRecord) {
  return {
    attempt_id: a.id,
    event_id: a.eventId,
    attempted_at: iso(a.attemptedAt),
    status_code: a.statusCode,
    latency_ms: a.latencyMs,
    error: a.error,
    response_body: a.responseBody,
    request_headers: a.requestHeaders,
    first_attempt: a.firstAttempt,
    outcome: a.outcome,
  };
}

function eventToWire(e: EventRecord) {
  return {
    event_id: e.id,
    sequence: e.seq,
    type: e.type,
    created_at: iso(e.createdAt),
    status: e.status,
    attempts: e.attempts,
    next_attempt_at: iso(e.nextAttemptAt),
    last_attempt_at: iso(e.lastAttemptAt),
    last_status_code: e.lastStatusCode,
    last_error: e.lastError,
    delivered_at: iso(e.deliveredAt),
    ...(e.body !== undefined && { body: e.body }),
  };
}

const ATTEMPT_SCHEMA = {
  type: 'object',
  properties: {
    attempt_id: { type: 'string' },
    event_id: { type: 'string' },
    attempted_at: { type: 'string', format: 'date-time' },
    status_code: { type: ['integer', 'null'] },
    latency_ms: { type: 'integer' },
    error: { type: ['string', 'null'] },
    response_body: { type: ['string', 'null'], description: 'first bytes of the response' },
    request_headers: {
      type: ['object', 'null'],
      additionalProperties: { type: 'string' },
      description: 'the request headers exactly as sent (signature headers included; no key), in sending order; null for attempts logged before they were kept and for pause lines',
    },
    first_attempt: { type: 'boolean' },
    outcome: { type: 'string', enum: ['succeeded', 'retrying', 'failed', 'stale', 'paused'], description: 'paused: the follower paused the webhook (error says why; no event)' },
  },
};
const EVENT_SCHEMA = {
  type: 'object',
  properties: {
    event_id: { type: 'string' },
    sequence: { type: 'integer' },
    type: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    status: { type: 'string', enum: STATUSES },
    attempts: { type: 'integer' },
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    last_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    last_status_code: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    delivered_at: { type: ['string', 'null'], format: 'date-time' },
    body: { type: 'string', description: 'the exact notification bytes (webhook-event only)' },
  },
};

export function createDeliveryRoutes(deps: ApiDeps): ApiRoute[] {
  const { repo, db } = deps;
  const tag = 'Deliveries' as const;
  return [
    defineRoute({
      method: 'GET',
      path: '/webhook-deliveries',
      operationId: 'webhook-deliveries',
      summary: 'Delivery log: every attempt (time, request headers, status, latency, truncated response), newest first.',
      tag,
      query: [WEBHOOK_ID_PARAM, { name: 'event_id', required: false, type: 'string', description: 'only this event' }, ...PAGE_PARAMS],
      response: { type: 'object', properties: { data: { type: 'array', items: ATTEMPT_SCHEMA }, pagination: PAGINATION_SCHEMA } },
      async handle({ query }) {
        const webhook = await loadWebhook(repo, queryWebhookId(query));
        const page = await listAttempts(db, webhook.id, { ...queryPage(query), eventId: query.get('event_id') });
        return { data: page.items.map(attemptToWire), pagination: pagination(page.after) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-events',
      operationId: 'webhook-events',
      summary: 'Events of a webhook with their delivery state, newest first; filter by status (e.g. failed).',
      tag,
      query: [WEBHOOK_ID_PARAM, { name: 'status', required: false, type: 'string', description: 'pending, succeeded or failed' }, ...PAGE_PARAMS],
      response: { type: 'object', properties: { data: { type: 'array', items: EVENT_SCHEMA }, pagination: PAGINATION_SCHEMA } },
      async handle({ query }) {
        const webhook = await loadWebhook(repo, queryWebhookId(query));
        const status = query.get('status');
        if (status !== null && !STATUSES.includes(status as DeliveryStatus)) throw invalidField('status', `must be one of ${STATUSES.join(', ')}`);
        const page = await listEvents(db, webhook.id, { ...queryPage(query), status: status as DeliveryStatus | null });
        return { data: page.items.map(eventToWire), pagination: pagination(page.after) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-event',
      operationId: 'webhook-event',
      summary: 'One event with its delivery state and the exact notification body.',
      tag,
      query: [WEBHOOK_ID_PARAM, { name: 'event_id', required: true, type: 'string', description: 'id of the event (whevt_…)' }],
      response: data(EVENT_SCHEMA),
      async handle({ query }) {
        const webhook = await loadWebhook(repo, queryWebhookId(query));
        const eventId = query.get('event_id');
        if (!eventId) throw invalidField('event_id', 'is required');
        const event = await getEvent(db, webhook.id, eventId);
        if (!event) throw noEvent(eventId, webhook.id, deps.notifier.retention.policy);
        return { data: eventToWire(event) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/replay-webhook-event',
      operationId: 'replay-webhook-event',
      summary: 'Send one delivered or failed event again (same id and bytes), with a fresh retry window.',
      tag,
      body: ReplayEventBody,
      response: data({ type: 'object', properties: { event_id: { type: 'string' }, status: { type: 'string', enum: ['replayed', 'pending'] } } }),
      async handle({ body, nowMs }) {
        const webhook = await loadWebhook(repo, body.webhook_id);
        const result = await replayEvent(db, webhook.id, body.event_id, nowMs, deps.notifier.retryWindowMs);
        if (result === 'not_found') throw noEvent(body.event_id, webhook.id, deps.notifier.retention.policy);
        deps.notifier.wake();
        return { data: { event_id: body.event_id, status: result } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/replay-failed-webhook-events',
      operationId: 'replay-failed-webhook-events',
      summary: 'Send again every failed event recorded at or after `since` (RFC 3339 or ms).',
      tag,
      body: ReplayFailedBody,
      response: data({ type: 'object', properties: { replayed: { type: 'integer' } } }),
      async handle({ body, nowMs }) {
        const webhook = await loadWebhook(repo, body.webhook_id);
        const sinceMs = typeof body.since === 'number' ? body.since : Date.parse(body.since);
        if (!Number.isFinite(sinceMs) || (typeof body.since === 'string' && !/^\d{4}-\d{2}-\d{2}T/.test(body.since))) {
          throw invalidField('since', 'must be an RFC 3339 time or milliseconds since the epoch');
        }
        const replayed = await replayFailedSince(db, webhook.id, sinceMs, nowMs, deps.notifier.retryWindowMs);
        deps.notifier.wake();
        return { data: { replayed } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/send-test-webhook',
      operationId: 'send-test-webhook',
      summary: 'Queue a test notification (event.test = true) through the normal delivery path.',
      tag,
      body: WebhookIdBody,
      response: data({ type: 'object', properties: { event_id: { type: 'string' } } }),
      async handle({ body }) {
        const webhook = await loadWebhook(repo, body.webhook_id);
        const sample = testNotificationEvent(webhook.type, webhook.network, await sampleSubject(repo, webhook));
        const [event] = await db.transaction((tx) => deps.notifier.appendEvents(tx, [{ webhookId: webhook.id, type: webhook.type, event: sample }]));
        if (!event) throw new RpcError(`webhook_id: webhook ${webhook.id} is switched off (is_active false); switch it on first`, { httpStatus: 409, data: { field: 'webhook_id' } });
        deps.notifier.wake();
        return { data: { event_id: event.id } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/rotate-webhook-signing-key',
      operationId: 'rotate-webhook-signing-key',
      summary: `New signing key; the old one also signs for grace_period_sec (default ${DEFAULT_GRACE_PERIOD_SEC}, max 7 days).`,
      tag,
      body: RotateKeyBody,
      response: data(WIRE_WEBHOOK_SCHEMA),
      async handle({ body, nowMs }) {
        await loadWebhook(repo, body.webhook_id);
        const graceMs = (body.grace_period_sec ?? DEFAULT_GRACE_PERIOD_SEC) * 1000;
        const rotated = await repo.rotateSigningKey(body.webhook_id, deps.ids.signingKey(), nowMs + graceMs, nowMs);
        return { data: webhookToWire(rotated ?? (await loadWebhook(repo, body.webhook_id)), nowMs, { revealSigningKey: true }) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/pause-webhook',
      operationId: 'pause-webhook',
      summary: 'Hold deliveries; events keep being recorded and go out in order on resume.',
      tag,
      body: WebhookIdBody,
      response: data(WIRE_WEBHOOK_SCHEMA),
      async handle({ body, nowMs }) {
        const webhook = await loadWebhook(repo, body.webhook_id);
        const changes = webhook.pausedAt === null ? { pausedAt: nowMs, pausedReason: 'manual' as const } : {};
        return { data: webhookToWire((await repo.update(webhook.id, changes, nowMs)) ?? webhook, nowMs) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/resume-webhook',
      operationId: 'resume-webhook',
      summary: 'Switch on and resume deliveries (after a manual or automatic pause) from where they stopped.',
      tag,
      body: WebhookIdBody,
      response: data(WIRE_WEBHOOK_SCHEMA),
      async handle({ body, nowMs }) {
        const webhook = await loadWebhook(repo, body.webhook_id);
        const updated = await repo.update(webhook.id, { isActive: true, pausedAt: null, pausedReason: null, failingSince: null }, nowMs);
        deps.notifier.wake();
        return { data: webhookToWire(updated ?? webhook, nowMs) };
      },
    }),
  ];
}
