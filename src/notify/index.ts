// Public boundary of the notify pipeline for the service wiring (main.ts): the notifier (outbox
// append + delivery worker), the management API route, and the types the follower needs.
export { createNotifier, type Notifier, type NotifierOptions } from './createNotifier.js';
export { createWebhooksApi, createWebhooksApiRoutes, isWebhooksApiPath, type WebhooksApiOptions } from './api/webhooksApi.js';
export { defineRoute, type ApiRoute, type ApiDeps } from './api/apiRoute.js';
export { parseBody, invalidField } from './api/apiSchemas.js';
export { loadWebhook, queryWebhookId, queryPage } from './api/apiQuery.js';
export { appendEvents, type OutboxEvent, type AppendedEvent, type AppendEventsOptions } from './outbox/appendEvents.js';
export { findActiveWebhooks, findAddressSubscribers, findNftSubscribers } from './webhooks/webhookSubscriptions.js';
export { createWebhookRepository, type WebhookRepository } from './webhooks/webhookRepository.js';
export {
  WEBHOOK_TYPES,
  WEBHOOK_TIERS,
  WEBHOOK_COUNT_LIMITS,
  RETRY_WINDOW_MS,
  type WebhookType,
  type WebhookTier,
  type WebhookRecord,
  type NftFilter,
} from './webhooks/webhookTypes.js';
export type { Notification } from './outbox/notificationBody.js';
export { systemClock, type Clock } from './clock.js';
export type { NotifyLogger } from './notifyLogger.js';
