// `POST /api/validate-graphql-query`: checks a Custom webhook's query against the block schema
// (syntax, fields, depth and size limits) the way create-webhook does, without saving anything,
// so the dashboard's editor can say what is wrong while it is being written.
import { z } from 'zod';
import { validateCustomWebhookQuery } from '../graphql/customQuery.js';
import { defineRoute, type ApiRoute } from './apiRoute.js';
import { invalidField } from './apiSchemas.js';

const ValidateBody = z.object({ graphql_query: z.string({ error: 'must be a query string' }) });

export function createValidateQueryRoutes(): ApiRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/validate-graphql-query',
      operationId: 'validate-graphql-query',
      summary: "Check a Custom webhook's GraphQL query against the block schema as create-webhook would; 400 naming the problem, nothing saved.",
      tag: 'Webhooks (provider-compatible)',
      body: ValidateBody,
      response: { type: 'object', required: ['data'], properties: { data: { type: 'object', properties: { valid: { type: 'boolean', enum: [true] } } } } },
      async handle({ body }) {
        if (!body.graphql_query.trim()) throw invalidField('graphql_query', 'must not be empty for GRAPHQL webhooks');
        const problem = validateCustomWebhookQuery(body.graphql_query);
        if (problem) throw invalidField('graphql_query', problem.replace(/^graphql_query /, ''));
        return { data: { valid: true } };
      },
    }),
  ];
}
