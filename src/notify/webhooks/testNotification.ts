// The event of a test notification (the dashboard's Test Webhook, `POST /send-test-webhook`): a
// realistic sample of what the webhook's type delivers, built by the same payload builders as real
// events, about the webhook's own first watched address or NFT filter when it has one, so a
// listener's parser and filters are exercised as a real notification would exercise them. Marked
// `test: true`; its hashes are random, so no sample is mistaken for a real transaction.
import { randomBytes } from 'node:crypto';
import type { Hex } from '../../rpc/hex.js';
import { quantityToHex } from '../../rpc/hex.js';
import type { RpcLog } from '../extract/blockData.js';
import { transferToAddressActivity, transferToNftActivity } from '../extract/activityPayload.js';
import type { TokenMetadata } from '../extract/tokenMetadata.js';
import { TRANSFER_TOPIC, type Erc721Transfer, type Transfer } from '../extract/transfers.js';
import type { WebhookRepository } from './webhookRepository.js';
import type { WebhookRecord, WebhookType } from './webhookTypes.js';

/** What the sample is about: the webhook's first watched address or NFT filter, when it has one. */
export interface SampleSubject {
  address?: string;
  nft?: { contractAddress: string; tokenId: string | null };
}

/** Block number the samples name (a recent mainnet-sized height; the hashes are random). */
const SAMPLE_BLOCK = 21_000_000n;
/** A counterparty and token contracts for the samples (no real accounts). */
const SAMPLE_COUNTERPARTY = '0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c';
const SAMPLE_TOKEN = '0x00000000000000000000000000000000c0ffee20';
const SAMPLE_TOKEN_META: TokenMetadata = { symbol: 'USDC', decimals: 6 };
const SAMPLE_NFT = '0x00000000000000000000000000000000c0ffee21';
const SAMPLE_WATCHED = '0x00000000000000000000000000000000000aced0';

const randomHash = (): Hex => `0x${randomBytes(32).toString('hex')}`;
const word = (value: bigint): Hex => `0x${value.toString(16).padStart(64, '0')}`;
const topicOf = (address: string): Hex => `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;

/** Reads what the sample should be about from the store (one row at most). */
export async function sampleSubject(repo: WebhookRepository, webhook: WebhookRecord): Promise<SampleSubject> {
  if (webhook.type === 'ADDRESS_ACTIVITY') {
    const page = await repo.listAddresses(webhook.id, { limit: 1 });
    return page.items[0] ? { address: page.items[0] } : {};
  }
  if (webhook.type === 'NFT_ACTIVITY') {
    const page = await repo.listNftFilters(webhook.id, { limit: 1 });
    return page.items[0] ? { nft: page.items[0] } : {};
  }
  return {};
}

/** The `event` of a test notification of `type` on `network`. */
export function testNotificationEvent(type: WebhookType, network: string, subject: SampleSubject = {}): object {
  const blockHash = randomHash();
  if (type === 'GRAPHQL') {
    const timestamp = Math.floor(Date.now() / 1000);
    return { data: { block: { hash: blockHash, number: Number(SAMPLE_BLOCK), timestamp, logs: [] } }, sequenceNumber: '0', network, test: true };
  }
  const log = (txHash: Hex, address: string, topics: Hex[], data: Hex, index: number): RpcLog => ({
    address: address as Hex,
    topics,
    data,
    blockNumber: quantityToHex(SAMPLE_BLOCK),
    transactionHash: txHash,
    transactionIndex: quantityToHex(BigInt(index)),
    blockHash,
    logIndex: quantityToHex(BigInt(index)),
    removed: false,
  });
  if (type === 'NFT_ACTIVITY') {
    const contract = (subject.nft?.contractAddress ?? SAMPLE_NFT).toLowerCase() as Hex;
    const tokenId = BigInt(subject.nft?.tokenId ?? '1');
    const txHash = randomHash();
    const transfer: Erc721Transfer = {
      category: 'erc721',
      from: SAMPLE_COUNTERPARTY,
      to: SAMPLE_WATCHED,
      txHash,
      txIndex: 0,
      contract,
      tokenId,
      log: log(txHash, contract, [TRANSFER_TOPIC, topicOf(SAMPLE_COUNTERPARTY), topicOf(SAMPLE_WATCHED), word(tokenId)], '0x', 0),
    };
    return { network, activity: [transferToNftActivity(transfer, SAMPLE_BLOCK)], test: true };
  }
  // ADDRESS_ACTIVITY: 1.5 ETH received by the address, then 25.5 USDC sent from it.
  const watched = (subject.address ?? SAMPLE_WATCHED).toLowerCase() as Hex;
  const [ethTx, tokenTx] = [randomHash(), randomHash()];
  const tokenRaw = 25_500_000n;
  const transfers: Transfer[] = [
    { category: 'external', from: SAMPLE_COUNTERPARTY, to: watched, txHash: ethTx, txIndex: 0, rawValue: 1_500_000_000_000_000_000n, typeTraceAddress: null },
    {
      category: 'token',
      from: watched,
      to: SAMPLE_COUNTERPARTY,
      txHash: tokenTx,
      txIndex: 1,
      contract: SAMPLE_TOKEN,
      rawValue: tokenRaw,
      log: log(tokenTx, SAMPLE_TOKEN, [TRANSFER_TOPIC, topicOf(watched), topicOf(SAMPLE_COUNTERPARTY)], word(tokenRaw), 1),
    },
  ];
  const ctx = { blockNumber: SAMPLE_BLOCK, nativeAsset: 'ETH', nativeDecimals: 18, tokens: new Map([[SAMPLE_TOKEN as Hex, SAMPLE_TOKEN_META]]) };
  return { network, activity: transfers.map((t) => transferToAddressActivity(t, ctx)), test: true };
}
