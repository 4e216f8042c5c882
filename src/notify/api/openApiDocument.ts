// The OpenAPI 3.1 document of the management API, generated from the route table (paths, query
// parameters, request schemas from the same zod schemas that validate) plus the notification
// format under `webhooks`. Served at `/api/openapi.json`.
import { z } from 'zod';
import type { ApiRoute } from './apiRoute.js';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string', description: 'what is wrong, naming the field' }, field: { type: 'string' } },
};

const NOTIFICATION_SCHEMA = {
  type: 'object',
  required: ['webhookId', 'id', 'createdAt', 'type', 'event'],
  properties: {
    webhookId: { type: 'string', example: 'wh_octjglnywaupz6th' },
    id: { type: 'string', description: 'event id, stable across retries and replays: drop duplicates by it', example: 'whevt_ogrc5v64myey69ux' },
    createdAt: { type: 'string', format: 'date-time' },
    type: { type: 'string', enum: ['ADDRESS_ACTIVITY', 'NFT_ACTIVITY', 'GRAPHQL'] },
    event: { type: 'object' },
  },
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

function requestSchema(schema: z.ZodType): object {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

export function buildOpenApiDocument(routes: readonly ApiRoute[], options: { version: string; prefix: string }): object {
  const paths: Record<string, Record<string, object>> = {
    '/openapi.json': { get: { operationId: 'openapi', summary: 'This document.', security: [], responses: { 200: { description: 'OpenAPI 3.1 document' } } } },
  };
  for (const r of routes) {
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      tags: [r.tag],
      ...(r.query && { parameters: r.query.map((q) => ({ name: q.name, in: 'query', required: q.required, description: q.description, schema: { type: q.type } })) }),
      ...(r.body && { requestBody: { required: true, content: { 'application/json': { schema: requestSchema(r.body) } } } }),
      responses: {
        200: { description: 'OK', content: { 'application/json': { schema: r.response } } },
        400: errorResponse('Invalid input; the message names the field'),
        401: errorResponse('Missing or wrong auth token'),
        ...(r.path !== '/team-webhooks' && r.path !== '/create-webhook' && { 404: errorResponse('Unknown webhook or event id') }),
        ...(r.path === '/create-webhook' && { 403: errorResponse('Webhook limit of the tier reached') }),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracehook webhooks API',
      version: options.version,
      description:
        'Manage webhooks (wire-compatible with the hosted provider Notify API) and inspect, replay and test their deliveries. ' +
        'Authenticate with the auth token in X-Service-Token (X-Alchemy-Token is accepted too).',
    },
    servers: [{ url: options.prefix }],
    security: [{ ServiceToken: [] }, { AlchemyToken: [] }],
    paths,
    webhooks: {
      notification: {
        post: {
          summary: 'What a webhook URL receives. Answer HTTP 200 to acknowledge; anything else is retried.',
          parameters: [
            { name: 'X-Service-Signature', in: 'header', required: true, description: 'hex HMAC-SHA256 of the raw body keyed by the signing key; comma-separated during a key rotation', schema: { type: 'string' } },
            { name: 'webhook-id', in: 'header', required: true, description: 'Standard Webhooks: the event id', schema: { type: 'string' } },
            { name: 'webhook-timestamp', in: 'header', required: true, description: 'Standard Webhooks: attempt time, Unix seconds', schema: { type: 'string' } },
            { name: 'webhook-signature', in: 'header', required: true, description: 'Standard Webhooks: v1,<base64> (space-separated during a key rotation)', schema: { type: 'string' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Notification' } } } },
          responses: { 200: { description: 'Acknowledged' } },
        },
      },
    },
    components: {
      securitySchemes: {
        ServiceToken: { type: 'apiKey', in: 'header', name: 'X-Service-Token' },
        AlchemyToken: { type: 'apiKey', in: 'header', name: 'X-Alchemy-Token' },
      },
      schemas: { Error: ERROR_SCHEMA, Notification: NOTIFICATION_SCHEMA },
    },
  };
}
