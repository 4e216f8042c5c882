// The OpenAPI 3.1 document of every management route, generated from the mounted route tables
// (paths, parameters, request schemas from the same zod schemas that validate) plus the webhook
// notification format under `webhooks`. Served at `/api/openapi.json`.
import { z } from 'zod';
import type { ApiRoute } from './apiRoute.js';

/** Routes mounted under one path prefix (`/api`, or `` for the operations routes at the root). */
export interface ApiMount {
  prefix: string;
  routes: readonly ApiRoute[];
}

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

/** `/keys/:id` as OpenAPI writes it: `/keys/{id}`. */
export const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 503: 'Not ready' };

function operation(r: ApiRoute): object {
  const pathParams = [...r.path.matchAll(/:([A-Za-z_]\w*)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = (r.query ?? []).map((q) => ({ name: q.name, in: 'query', required: q.required, description: q.description, schema: { type: q.type } }));
  const status = r.status ?? 200;
  return {
    operationId: r.operationId,
    summary: r.summary,
    tags: [r.tag],
    ...(r.auth === false && { security: [] }),
    ...((pathParams.length > 0 || query.length > 0) && { parameters: [...pathParams, ...query] }),
    ...(r.body && { requestBody: { required: true, content: { 'application/json': { schema: requestSchema(r.body) } } } }),
    responses: {
      [status]: { description: STATUS_TEXT[status] ?? 'OK', content: { [r.contentType ?? 'application/json']: { schema: r.response } } },
      400: errorResponse('Invalid input; the message names the field'),
      ...(r.auth !== false && { 401: errorResponse('Missing or wrong auth token') }),
      ...Object.fromEntries(Object.entries(r.errors ?? {}).map(([code, text]) => [code, errorResponse(text)])),
    },
  };
}

/**
 * One document for every mount. Paths are relative to the first mount's prefix (its `servers`
 * entry); routes of other mounts carry their own `servers` entry, so each path resolves to where
 * the router serves it.
 */
export function buildOpenApiDocument(mounts: readonly ApiMount[], options: { version: string }): object {
  const base = mounts[0]?.prefix ?? '';
  const paths: Record<string, Record<string, unknown>> = {};
  for (const mount of mounts) {
    for (const r of mount.routes) {
      const path = toOpenApiPath(r.path);
      paths[path] ??= mount.prefix === base ? {} : { servers: [{ url: mount.prefix || '/' }] };
      paths[path]![r.method.toLowerCase()] = operation(r);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracehook management API',
      version: options.version,
      description:
        'Manage webhooks (wire-compatible with the hosted provider Notify API), inspect, replay and test their deliveries, manage API keys and read the service health. ' +
        'Authenticate with the auth token in X-Service-Token (X-Alchemy-Token is accepted too).',
    },
    servers: [{ url: base || '/' }],
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
