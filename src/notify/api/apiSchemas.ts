// Request body schemas of the management API (snake_case, as the hosted provider's Notify API), and
// the conversion of a validation failure into a 400 whose message names the field. The same
// schemas generate the OpenAPI request bodies, so documentation and validation cannot drift.
import { z } from 'zod';
import { WEBHOOK_TYPES, MAX_ADDRESSES_PER_REQUEST, MAX_NFT_FILTERS_PER_WEBHOOK } from '../webhooks/webhookTypes.js';

export const Address = z.string({ error: 'must be a string' }).regex(/^0x[0-9a-fA-F]{40}$/, { error: 'must be a 20-byte hex address (0x + 40 hex digits)' });
/** True unless `v` is a whole number above `max` (zod runs refinements after a failed union too: other values are left to it). */
function atMost(v: string | number, max: bigint): boolean {
  try {
    return BigInt(v) <= max;
  } catch {
    return true;
  }
}
const TOKEN_ID_ERROR = 'must be a decimal or 0x-prefixed hex token id';
const MAX_TOKEN_ID = 2n ** 256n - 1n;
const TokenId = z
  .union(
    [z.string().regex(/^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/, { error: TOKEN_ID_ERROR }), z.number({ error: TOKEN_ID_ERROR }).int({ error: TOKEN_ID_ERROR }).nonnegative({ error: TOKEN_ID_ERROR })],
    { error: TOKEN_ID_ERROR },
  )
  .refine((v) => atMost(v, MAX_TOKEN_ID), { error: 'must be at most 2^256 - 1' });
/** An NFT filter's contract: an address, or `*` for every NFT contract of the network. */
const NftContract = z.union([Address, z.literal('*')], { error: 'must be a 20-byte hex address, or * for every NFT contract' });
export const NftFilterParam = z.object({ contract_address: NftContract, token_id: TokenId.optional() });
const BLOCK_NUMBER_ERROR = 'must be a block number (integer, decimal or 0x hex string)';
/** Largest block number the stores hold (signed 64-bit BIGINT). */
export const MAX_BLOCK_NUMBER = 2n ** 63n - 1n;
/** A block number as JSON number, decimal string or hex string, at most MAX_BLOCK_NUMBER. */
export const BlockNumberParam = z
  .union(
    [
      z.number({ error: BLOCK_NUMBER_ERROR }).int({ error: BLOCK_NUMBER_ERROR }).nonnegative({ error: BLOCK_NUMBER_ERROR }),
      z.string().regex(/^(0x[0-9a-fA-F]+|[0-9]+)$/, { error: BLOCK_NUMBER_ERROR }),
    ],
    { error: BLOCK_NUMBER_ERROR },
  )
  .refine((v) => atMost(v, MAX_BLOCK_NUMBER), { error: `must be at most ${MAX_BLOCK_NUMBER} (2^63 - 1)` });
const WebhookId = z.string({ error: 'is required' }).min(1, { error: 'is required' });
const Addresses = (max: number) => z.array(Address, { error: 'must be an array of addresses' }).max(max, { error: `must hold at most ${max} addresses` });
const NftFilters = z.array(NftFilterParam, { error: 'must be an array of {contract_address, token_id?}' }).max(MAX_NFT_FILTERS_PER_WEBHOOK, {
  error: `must hold at most ${MAX_NFT_FILTERS_PER_WEBHOOK} filters`,
});
const Name = z.string({ error: 'must be a string' }).max(256, { error: 'must be at most 256 characters' });

export const CreateWebhookBody = z.object({
  /** A served network's name, any case, `-` for `_`; omitted: the only network, when there is one. */
  network: z.string({ error: 'must be a string' }).optional(),
  webhook_type: z.enum(WEBHOOK_TYPES, { error: `must be one of ${WEBHOOK_TYPES.join(', ')}` }),
  webhook_url: z.string({ error: 'is required' }),
  name: Name.optional(),
  app_id: z.string().optional(),
  addresses: Addresses(MAX_ADDRESSES_PER_REQUEST).optional(),
  nft_filters: NftFilters.optional(),
  graphql_query: z
    .union([z.string(), z.object({ query: z.string(), skip_empty_messages: z.boolean().optional() })], {
      error: 'must be a query string or {query, skip_empty_messages}',
    })
    .optional(),
  /** Also notify for history: the filter runs over blocks from here to the head, in order, before live blocks. */
  from_block: BlockNumberParam.optional(),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z.object({
  webhook_id: WebhookId,
  is_active: z.boolean({ error: 'must be a boolean' }).optional(),
  name: Name.optional(),
  webhook_url: z.string({ error: 'must be a string' }).optional(),
});

export const UpdateAddressesBody = z.object({
  webhook_id: WebhookId,
  addresses_to_add: Addresses(MAX_ADDRESSES_PER_REQUEST).default([]),
  addresses_to_remove: Addresses(MAX_ADDRESSES_PER_REQUEST).default([]),
});

export const ReplaceAddressesBody = z.object({
  webhook_id: WebhookId,
  addresses: Addresses(MAX_ADDRESSES_PER_REQUEST).min(1, { error: 'must not be empty' }),
});

export const UpdateNftFiltersBody = z.object({
  webhook_id: WebhookId,
  nft_filters_to_add: NftFilters.default([]),
  nft_filters_to_remove: NftFilters.default([]),
});

export const WebhookIdBody = z.object({ webhook_id: WebhookId });

export const ReplayEventBody = z.object({ webhook_id: WebhookId, event_id: z.string({ error: 'is required' }).min(1, { error: 'is required' }) });

const SINCE_ERROR = 'must be an RFC 3339 time or milliseconds since the epoch';
export const ReplayFailedBody = z.object({
  webhook_id: WebhookId,
  since: z.union([z.string(), z.number().int({ error: SINCE_ERROR }).nonnegative({ error: SINCE_ERROR })], { error: SINCE_ERROR }),
});

export const RotateKeyBody = z.object({
  webhook_id: WebhookId,
  grace_period_sec: z
    .number({ error: 'must be a number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(0, { error: 'must be between 0 and 604800 (7 days)' })
    .max(7 * 24 * 3600, { error: 'must be between 0 and 604800 (7 days)' })
    .optional(),
});

export { parseBody, invalidField } from '../../http/api/parseBody.js';

/** Canonical decimal token id. */
export function tokenIdToDecimal(tokenId: string | number): string {
  return BigInt(tokenId).toString(10);
}
