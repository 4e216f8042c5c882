// The endpoints wire-compatible with the hosted provider's Notify API (paths, snake_case bodies,
// `{data: …}` replies), so its public SDK works unchanged when pointed at our `/api`.
import { ForbiddenError } from '../../rpc/errors.js';
import { requestBackfill } from '../follow/followerStore.js';
import { MAX_ADDRESSES_PER_WEBHOOK, MAX_NFT_FILTERS_PER_WEBHOOK, WEBHOOK_COUNT_LIMITS, type NftFilter, type WebhookRecord, type WebhookType } from '../webhooks/webhookTypes.js';
import { validateCustomWebhookQuery } from '../graphql/customQuery.js';
import { defineRoute, type ApiDeps, type ApiRoute } from './apiRoute.js';
import { findNetworkName } from '../../config/networkNames.js';
import {
  CreateWebhookBody,
  ReplaceAddressesBody,
  UpdateAddressesBody,
  UpdateNftFiltersBody,
  UpdateWebhookBody,
  invalidField,
  tokenIdToDecimal,
} from './apiSchemas.js';
import { PAGE_PARAMS, PAGINATION_SCHEMA, WEBHOOK_ID_PARAM, loadWebhook, pagination, queryPage, queryWebhookId } from './apiQuery.js';
import { WIRE_WEBHOOK_SCHEMA, nftFilterToWire, webhookToWire } from './webhookToWire.js';

const EMPTY = { type: 'object', description: 'empty object' } as const;
const data = (schema: object) => ({ type: 'object', required: ['data'], properties: { data: schema } });

function requireType(webhook: WebhookRecord, type: WebhookType, field: string): void {
  if (webhook.type !== type) throw invalidField(field, `webhook ${webhook.id} is a ${webhook.type} webhook; this applies to ${type} webhooks`);
}

const toNftFilters = (list: ReadonlyArray<{ contract_address: string; token_id?: string | number }>): NftFilter[] =>
  list.map((f) => ({ contractAddress: f.contract_address.toLowerCase(), tokenId: f.token_id === undefined ? null : tokenIdToDecimal(f.token_id) }));

/** Checks the type's filters; returns them normalised. */
function filtersFor(body: CreateWebhookBody): { addresses: string[]; nftFilters: NftFilter[]; graphqlQuery: string | null; skipEmpty: boolean } {
  const type = body.webhook_type;
  const misplaced = (field: string, wanted: WebhookType) => invalidField(field, `only ${wanted} webhooks take ${field}`);
  if (body.addresses !== undefined && type !== 'ADDRESS_ACTIVITY') throw misplaced('addresses', 'ADDRESS_ACTIVITY');
  if (body.nft_filters !== undefined && type !== 'NFT_ACTIVITY') throw misplaced('nft_filters', 'NFT_ACTIVITY');
  if (body.graphql_query !== undefined && type !== 'GRAPHQL') throw misplaced('graphql_query', 'GRAPHQL');
  if (type === 'ADDRESS_ACTIVITY' && !body.addresses?.length) throw invalidField('addresses', 'must not be empty for ADDRESS_ACTIVITY webhooks');
  if (type === 'NFT_ACTIVITY' && !body.nft_filters?.length) throw invalidField('nft_filters', 'must not be empty for NFT_ACTIVITY webhooks');
  let graphqlQuery: string | null = null;
  let skipEmpty = false;
  if (type === 'GRAPHQL') {
    const q = body.graphql_query;
    graphqlQuery = typeof q === 'string' ? q : (q?.query ?? '');
    skipEmpty = typeof q === 'object' && q.skip_empty_messages === true;
    if (!graphqlQuery.trim()) throw invalidField('graphql_query', 'must not be empty for GRAPHQL webhooks');
    // Parsed and validated against the Custom webhook schema the follower runs it on.
    const problem = validateCustomWebhookQuery(graphqlQuery);
    if (problem) throw invalidField('graphql_query', problem.replace(/^graphql_query /, ''));
  }
  return { addresses: (body.addresses ?? []).map((a) => a.toLowerCase()), nftFilters: toNftFilters(body.nft_filters ?? []), graphqlQuery, skipEmpty };
}

/**
 * The served network a create names, as configured (`eth-mainnet` → `ETH_MAINNET`, so the follower
 * of that network finds it); without a name, the only network when there is exactly one.
 */
function servedNetwork(served: readonly string[], requested: string | undefined): string {
  if (requested === undefined) {
    if (served.length === 1) return served[0]!;
    throw invalidField('network', `is required: this service serves ${served.join(', ')}`);
  }
  const name = findNetworkName(served, requested);
  if (!name) throw invalidField('network', `unknown network ${JSON.stringify(requested.slice(0, 64))}; this service serves ${served.join(', ')}`);
  return name;
}

export function createNotifyRoutes(deps: ApiDeps): ApiRoute[] {
  const { repo } = deps;
  const checkUrl = async (url: string) => {
    const reason = await deps.notifier.urlPolicy.check(url);
    if (reason) throw invalidField('webhook_url', reason);
  };
  return [
    defineRoute({
      method: 'POST',
      path: '/create-webhook',
      operationId: 'create-webhook',
      summary: 'Create a webhook. The reply holds its signing key.',
      tag: 'Webhooks (provider-compatible)',
      body: CreateWebhookBody,
      response: data(WIRE_WEBHOOK_SCHEMA),
      async handle({ body, nowMs }) {
        const network = servedNetwork(deps.networks, body.network);
        const filters = filtersFor(body);
        await checkUrl(body.webhook_url);
        const limit = WEBHOOK_COUNT_LIMITS[deps.tier];
        const created = await repo.create(
          {
            id: deps.ids.webhookId(),
            network,
            type: body.webhook_type,
            url: body.webhook_url,
            name: body.name ?? null,
            appId: body.app_id ?? null,
            signingKey: deps.ids.signingKey(),
            graphqlQuery: filters.graphqlQuery,
            skipEmptyMessages: filters.skipEmpty,
            addresses: filters.addresses,
            nftFilters: filters.nftFilters,
            createdAt: nowMs,
          },
          limit,
          body.from_block === undefined
            ? undefined
            : (tx, webhook) => requestBackfill(tx, { webhookId: webhook.id, network: webhook.network, fromBlock: BigInt(body.from_block!), nowMs }),
        );
        if (!created) throw new ForbiddenError(`webhook limit reached: the ${deps.tier} tier allows ${limit} webhooks`);
        if (body.from_block !== undefined) deps.onBackfillRequested?.();
        return { data: webhookToWire(created, nowMs, { revealSigningKey: true }) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/team-webhooks',
      operationId: 'team-webhooks',
      summary: 'List all webhooks, oldest first (signing keys are not listed: signing_key is an empty string).',
      tag: 'Webhooks (provider-compatible)',
      response: data({ type: 'array', items: WIRE_WEBHOOK_SCHEMA }),
      async handle({ nowMs }) {
        return { data: (await repo.list()).map((w) => webhookToWire(w, nowMs)) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/update-webhook',
      operationId: 'update-webhook',
      summary: 'Switch a webhook on or off, rename it, or change its URL. is_active true also resumes a paused webhook.',
      tag: 'Webhooks (provider-compatible)',
      body: UpdateWebhookBody,
      response: data(WIRE_WEBHOOK_SCHEMA),
      async handle({ body, nowMs }) {
        await loadWebhook(repo, body.webhook_id);
        if (body.webhook_url !== undefined) await checkUrl(body.webhook_url);
        const resume = body.is_active === true ? { pausedAt: null, pausedReason: null, failingSince: null } : {};
        const updated = await repo.update(body.webhook_id, { name: body.name, url: body.webhook_url, isActive: body.is_active, ...resume }, nowMs);
        if (body.is_active === true) deps.notifier.wake();
        return { data: webhookToWire(updated ?? (await loadWebhook(repo, body.webhook_id)), nowMs) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/delete-webhook',
      operationId: 'delete-webhook',
      summary: 'Delete a webhook with its filters, pending events and delivery log.',
      tag: 'Webhooks (provider-compatible)',
      query: [WEBHOOK_ID_PARAM],
      response: EMPTY,
      async handle({ query }) {
        const id = queryWebhookId(query);
        if (!(await repo.delete(id))) await loadWebhook(repo, id);
        return {};
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/update-webhook-addresses',
      operationId: 'update-webhook-addresses',
      summary: 'Add and remove tracked addresses (idempotent).',
      tag: 'Webhooks (provider-compatible)',
      body: UpdateAddressesBody,
      response: EMPTY,
      async handle({ body }) {
        requireType(await loadWebhook(repo, body.webhook_id), 'ADDRESS_ACTIVITY', 'webhook_id');
        await repo.updateAddresses(body.webhook_id, { add: body.addresses_to_add, remove: body.addresses_to_remove }, MAX_ADDRESSES_PER_WEBHOOK);
        return {};
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/update-webhook-addresses',
      operationId: 'replace-webhook-addresses',
      summary: 'Replace the whole list of tracked addresses.',
      tag: 'Webhooks (provider-compatible)',
      body: ReplaceAddressesBody,
      response: EMPTY,
      async handle({ body }) {
        requireType(await loadWebhook(repo, body.webhook_id), 'ADDRESS_ACTIVITY', 'webhook_id');
        await repo.updateAddresses(body.webhook_id, { add: body.addresses, remove: [], replace: true }, MAX_ADDRESSES_PER_WEBHOOK);
        return {};
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-addresses',
      operationId: 'webhook-addresses',
      summary: 'Tracked addresses of an ADDRESS_ACTIVITY webhook, in pages (lowercase, sorted).',
      tag: 'Webhooks (provider-compatible)',
      query: [WEBHOOK_ID_PARAM, ...PAGE_PARAMS],
      response: { type: 'object', properties: { data: { type: 'array', items: { type: 'string' } }, pagination: PAGINATION_SCHEMA } },
      async handle({ query }) {
        const webhook = await loadWebhook(repo, queryWebhookId(query));
        requireType(webhook, 'ADDRESS_ACTIVITY', 'webhook_id');
        const page = await repo.listAddresses(webhook.id, queryPage(query));
        return { data: page.items, pagination: pagination(page.after, page.totalCount) };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/update-webhook-nft-filters',
      operationId: 'update-webhook-nft-filters',
      summary: 'Add and remove NFT filters (contract, optionally one token id).',
      tag: 'Webhooks (provider-compatible)',
      body: UpdateNftFiltersBody,
      response: EMPTY,
      async handle({ body }) {
        requireType(await loadWebhook(repo, body.webhook_id), 'NFT_ACTIVITY', 'webhook_id');
        const change = { add: toNftFilters(body.nft_filters_to_add), remove: toNftFilters(body.nft_filters_to_remove) };
        await repo.updateNftFilters(body.webhook_id, change, MAX_NFT_FILTERS_PER_WEBHOOK);
        return {};
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhook-nft-filters',
      operationId: 'webhook-nft-filters',
      summary: 'NFT filters of an NFT_ACTIVITY webhook, in pages.',
      tag: 'Webhooks (provider-compatible)',
      query: [WEBHOOK_ID_PARAM, ...PAGE_PARAMS],
      response: {
        type: 'object',
        properties: {
          data: { type: 'array', items: { type: 'object', properties: { contract_address: { type: 'string' }, token_id: { type: 'string' } } } },
          pagination: PAGINATION_SCHEMA,
        },
      },
      async handle({ query }) {
        const webhook = await loadWebhook(repo, queryWebhookId(query));
        requireType(webhook, 'NFT_ACTIVITY', 'webhook_id');
        const page = await repo.listNftFilters(webhook.id, queryPage(query));
        return { data: page.items.map(nftFilterToWire), pagination: pagination(page.after, page.totalCount) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/dashboard-webhook-graphql-query',
      operationId: 'webhook-graphql-query',
      summary: 'The GraphQL query of a GRAPHQL webhook.',
      tag: 'Webhooks (provider-compatible)',
      query: [WEBHOOK_ID_PARAM],
      response: data({ type: 'object', properties: { graphql_query: { type: 'string' }, skip_empty_messages: { type: 'boolean' } } }),
      async handle({ query }) {
        const webhook = await loadWebhook(repo, queryWebhookId(query));
        requireType(webhook, 'GRAPHQL', 'webhook_id');
        return { data: { graphql_query: webhook.graphqlQuery, skip_empty_messages: webhook.skipEmptyMessages } };
      },
    }),
  ];
}
