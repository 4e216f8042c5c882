// Turns one block into the notification events of every interested webhook, inside the follower's
// transaction: subscribers are looked up in the store for exactly the addresses and NFT contracts the
// block touched (so the cost does not depend on how many addresses are watched, and an address
// change committed before the block's transaction applies to it); Custom webhooks take the results
// of their queries, run before the transaction (customQueryEvents.ts).
import type { Hex } from '../../rpc/hex.js';
import type { SqlExecutor } from '../../store/sql.js';
import type { NotifyLogger } from '../notifyLogger.js';
import type { WebhookType } from '../webhooks/webhookTypes.js';
import { findActiveWebhooks, findNftSubscribers } from '../webhooks/webhookSubscriptions.js';
import type { BlockData } from '../extract/blockData.js';
import type { Transfer } from '../extract/transfers.js';
import type { TokenMetadata } from '../extract/tokenMetadata.js';
import { asRemoved, type AddressActivity, type NftActivity } from '../extract/activityPayload.js';
import { createAddressActivityBuilder, createNftMatcher, selectAddressActivity, selectNftActivity, type NftFilterSpec } from '../extract/matchActivity.js';
import { nextSequence } from './followerStore.js';
import { customEvents, type BlockQueries, type CustomEvent } from './customQueryEvents.js';

export type { CustomEvent } from './customQueryEvents.js';

/** `event` of ADDRESS_ACTIVITY and NFT_ACTIVITY notifications. */
export interface ActivityEvent<A> {
  network: string;
  activity: A[];
}

export type WebhookEvent =
  | { webhookId: string; type: 'ADDRESS_ACTIVITY'; event: ActivityEvent<AddressActivity> }
  | { webhookId: string; type: 'NFT_ACTIVITY'; event: ActivityEvent<NftActivity> }
  | { webhookId: string; type: 'GRAPHQL'; event: CustomEvent };

export interface BlockEventsInput {
  network: string;
  block: BlockData;
  transfers: readonly Transfer[];
  tokens: ReadonlyMap<Hex, TokenMetadata>;
  nativeAsset: string;
  nativeDecimals: number;
  /** Which webhooks take part (live: all but backfilling ones; backfill: the ones at this block). */
  include: (webhookId: string) => boolean;
  /** The block's Custom query runs (mostly done before the transaction). */
  queries: BlockQueries;
  nowMs: number;
  logger: NotifyLogger;
}

/** Events for one block, one per webhook at most, in a stable order (by type, then webhook id). */
export async function buildBlockEvents(tx: SqlExecutor, input: BlockEventsInput): Promise<WebhookEvent[]> {
  return [...(await addressEvents(tx, input)), ...(await nftEvents(tx, input)), ...(await customEvents(tx, input))];
}

/**
 * (webhook, address) pairs for the addresses a block touched, over every ADDRESS_ACTIVITY webhook
 * of the network that takes part. One index lookup per touched address (`webhook_addresses.address`),
 * so the cost follows the block, not how many addresses the webhooks watch.
 */
async function watchedAddresses(tx: SqlExecutor, input: BlockEventsInput, touched: readonly string[]): Promise<Map<string, Set<string>>> {
  const webhooks = new Set((await findActiveWebhooks(tx, input.network, 'ADDRESS_ACTIVITY')).map((w) => w.id).filter(input.include));
  const watchedBy = new Map<string, Set<string>>();
  if (!webhooks.size) return watchedBy;
  for (let i = 0; i < touched.length; i += ADDRESS_CHUNK) {
    const chunk = touched.slice(i, i + ADDRESS_CHUNK);
    const rows = await tx.query<{ webhook_id: string; address: string }>(
      `SELECT webhook_id, address FROM webhook_addresses WHERE address IN (${chunk.map((_, j) => `$${j + 1}`).join(', ')})`,
      chunk,
    );
    for (const { webhook_id: webhookId, address } of rows) {
      if (!webhooks.has(webhookId)) continue;
      let set = watchedBy.get(webhookId);
      if (!set) watchedBy.set(webhookId, (set = new Set()));
      set.add(address);
    }
  }
  return watchedBy;
}

const ADDRESS_CHUNK = 500;

async function addressEvents(tx: SqlExecutor, input: BlockEventsInput): Promise<WebhookEvent[]> {
  if (!input.transfers.length) return [];
  const touched = new Set<string>();
  for (const t of input.transfers) touched.add(t.from).add(t.to);
  const watchedBy = await watchedAddresses(tx, input, [...touched]);
  const builder = createAddressActivityBuilder({ blockNumber: BigInt(input.block.header.number), nativeAsset: input.nativeAsset, nativeDecimals: input.nativeDecimals, tokens: input.tokens });
  const out: WebhookEvent[] = [];
  for (const webhookId of [...watchedBy.keys()].sort()) {
    const activity = selectAddressActivity(input.transfers, watchedBy.get(webhookId)!, builder);
    if (activity.length) out.push({ webhookId, type: 'ADDRESS_ACTIVITY', event: { network: input.network, activity } });
  }
  return out;
}

/** NFT filter contract that stands for every ERC-721 and ERC-1155 contract of the network. */
export const EVERY_NFT_CONTRACT = '*';

async function nftEvents(tx: SqlExecutor, input: BlockEventsInput): Promise<WebhookEvent[]> {
  const contracts = new Set<string>();
  for (const t of input.transfers) if (t.category === 'erc721' || t.category === 'erc1155') contracts.add(t.contract);
  if (!contracts.size) return [];
  const filtersBy = new Map<string, { filters: NftFilterSpec[]; everyNft: boolean }>();
  for (const { webhookId, contractAddress, tokenId } of await findNftSubscribers(tx, input.network, [...contracts, EVERY_NFT_CONTRACT])) {
    if (!input.include(webhookId)) continue;
    const entry = filtersBy.get(webhookId) ?? { filters: [], everyNft: false };
    if (contractAddress === EVERY_NFT_CONTRACT) entry.everyNft = true;
    else entry.filters.push({ contractAddress, tokenId });
    filtersBy.set(webhookId, entry);
  }
  const blockNumber = BigInt(input.block.header.number);
  const out: WebhookEvent[] = [];
  for (const webhookId of [...filtersBy.keys()].sort()) {
    const { filters, everyNft } = filtersBy.get(webhookId)!;
    const activity = selectNftActivity(input.transfers, createNftMatcher(filters, everyNft), blockNumber);
    if (activity.length) out.push({ webhookId, type: 'NFT_ACTIVITY', event: { network: input.network, activity } });
  }
  return out;
}

/** The retraction of an event sent for a block that left the canonical chain. */
export async function removalEvent(tx: SqlExecutor, network: string, sent: { webhookId: string; type: WebhookType; event: string }, nowMs: number): Promise<WebhookEvent> {
  const original = JSON.parse(sent.event) as ActivityEvent<AddressActivity & NftActivity> | CustomEvent;
  if (sent.type === 'GRAPHQL') {
    const sequence = await nextSequence(tx, network, sent.webhookId, nowMs);
    return { webhookId: sent.webhookId, type: 'GRAPHQL', event: { ...(original as CustomEvent), sequenceNumber: sequence.toString(), removed: true } };
  }
  const activity = (original as ActivityEvent<AddressActivity & NftActivity>).activity.map(asRemoved);
  return { webhookId: sent.webhookId, type: sent.type, event: { network: (original as ActivityEvent<unknown>).network, activity } } as WebhookEvent;
}

/** Token and NFT contracts among the transfers (their metadata is needed for the payloads). */
export function tokenContracts(transfers: readonly Transfer[]): Hex[] {
  const out = new Set<Hex>();
  for (const t of transfers) if (t.category === 'token' || t.category === 'erc721' || t.category === 'erc1155') out.add(t.contract);
  return [...out];
}
