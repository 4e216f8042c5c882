// The activity objects of ADDRESS_ACTIVITY and NFT_ACTIVITY notifications, in the hosted provider's
// field names and encodings: hex `blockNum`, decimal-adjusted number `value`, 32-byte `rawValue` for
// tokens, minimal-hex token ids, and the JSON-RPC log with `removed`.
import { quantityToHex, type Hex } from '../../rpc/hex.js';
import type { RpcLog } from './blockData.js';
import type { TokenMetadata } from './tokenMetadata.js';
import type { Transfer, TransferCategory, Erc1155Item } from './transfers.js';

/** The log attached to token activities: the JSON-RPC log, with `removed` set on retraction. */
export type ActivityLog = RpcLog;

export interface Erc1155MetadataEntry {
  tokenId: Hex;
  value: Hex;
}

/** One entry of `event.activity` in an ADDRESS_ACTIVITY notification. */
export interface AddressActivity {
  fromAddress: Hex;
  toAddress: Hex;
  blockNum: Hex;
  hash: Hex;
  /** Amount in whole units (raw / 10^decimals); raw count when decimals are unknown; null for NFTs. */
  value: number | null;
  /** `ETH` for ether, else the token's symbol (null when the contract has none). */
  asset: string | null;
  category: TransferCategory;
  rawContract: { rawValue: Hex; address: Hex | null; decimals: number | null };
  erc721TokenId: Hex | null;
  erc1155Metadata: Erc1155MetadataEntry[] | null;
  /** `call_0_1` for internal transfers, else null. */
  typeTraceAddress: string | null;
  log: ActivityLog | null;
  /** Present (true) only in the notification that retracts an activity after a reorg. */
  removed?: true;
}

/** One entry of `event.activity` in an NFT_ACTIVITY notification. */
export interface NftActivity {
  fromAddress: Hex;
  toAddress: Hex;
  contractAddress: Hex;
  blockNum: Hex;
  hash: Hex;
  erc721TokenId: Hex | null;
  erc1155Metadata: Erc1155MetadataEntry[] | null;
  category: 'erc721' | 'erc1155';
  log: ActivityLog;
  removed?: true;
}

/** Options shared by the payload builders. */
export interface ActivityContext {
  /** Block number of the transfers. */
  blockNumber: bigint;
  /** Symbol of the network's native coin (`ETH`). */
  nativeAsset: string;
  /** Decimals of the native coin (18). */
  nativeDecimals: number;
  /** Metadata of every token contract among the transfers (missing entries count as unknown). */
  tokens: ReadonlyMap<Hex, TokenMetadata>;
}

const UNKNOWN_TOKEN: TokenMetadata = { symbol: null, decimals: null };

/** The ADDRESS_ACTIVITY entry for a transfer. */
export function transferToAddressActivity(transfer: Transfer, ctx: ActivityContext): AddressActivity {
  const base = { fromAddress: transfer.from, toAddress: transfer.to, blockNum: quantityToHex(ctx.blockNumber), hash: transfer.txHash };
  switch (transfer.category) {
    case 'external':
    case 'internal':
      return {
        ...base,
        value: unitsToNumber(transfer.rawValue, ctx.nativeDecimals),
        asset: ctx.nativeAsset,
        category: transfer.category,
        rawContract: { rawValue: quantityToHex(transfer.rawValue), address: null, decimals: ctx.nativeDecimals },
        erc721TokenId: null,
        erc1155Metadata: null,
        typeTraceAddress: transfer.typeTraceAddress,
        log: null,
      };
    case 'token': {
      const token = ctx.tokens.get(transfer.contract) ?? UNKNOWN_TOKEN;
      return {
        ...base,
        value: unitsToNumber(transfer.rawValue, token.decimals ?? 0),
        asset: token.symbol,
        category: 'token',
        rawContract: { rawValue: transfer.log.data, address: transfer.contract, decimals: token.decimals },
        erc721TokenId: null,
        erc1155Metadata: null,
        typeTraceAddress: null,
        log: toActivityLog(transfer.log),
      };
    }
    case 'erc721':
    case 'erc1155': {
      const token = ctx.tokens.get(transfer.contract) ?? UNKNOWN_TOKEN;
      return {
        ...base,
        value: null,
        asset: token.symbol,
        category: transfer.category,
        rawContract: { rawValue: transfer.log.data, address: transfer.contract, decimals: null },
        erc721TokenId: transfer.category === 'erc721' ? quantityToHex(transfer.tokenId) : null,
        erc1155Metadata: transfer.category === 'erc1155' ? transfer.items.map(toMetadataEntry) : null,
        typeTraceAddress: null,
        log: toActivityLog(transfer.log),
      };
    }
  }
}

/** The NFT_ACTIVITY entry for an NFT transfer, limited to `items` for ERC-1155 (the matching ids). */
export function transferToNftActivity(
  transfer: Extract<Transfer, { category: 'erc721' | 'erc1155' }>,
  blockNumber: bigint,
  items?: readonly Erc1155Item[],
): NftActivity {
  return {
    fromAddress: transfer.from,
    toAddress: transfer.to,
    contractAddress: transfer.contract,
    blockNum: quantityToHex(blockNumber),
    hash: transfer.txHash,
    erc721TokenId: transfer.category === 'erc721' ? quantityToHex(transfer.tokenId) : null,
    erc1155Metadata: transfer.category === 'erc1155' ? (items ?? transfer.items).map(toMetadataEntry) : null,
    category: transfer.category,
    log: toActivityLog(transfer.log),
  };
}

function toMetadataEntry(item: Erc1155Item): Erc1155MetadataEntry {
  return { tokenId: quantityToHex(item.tokenId), value: quantityToHex(item.value) };
}

/** Copies the fields the payload carries, lower-cased, in the provider's order. */
export function toActivityLog(log: RpcLog): ActivityLog {
  return {
    address: log.address.toLowerCase() as Hex,
    topics: log.topics.map((t) => t.toLowerCase() as Hex),
    data: log.data.toLowerCase() as Hex,
    blockNumber: log.blockNumber,
    transactionHash: log.transactionHash.toLowerCase() as Hex,
    transactionIndex: log.transactionIndex,
    blockHash: log.blockHash.toLowerCase() as Hex,
    logIndex: log.logIndex,
    removed: log.removed,
  };
}

/** `raw / 10^decimals` as the nearest double, computed from the exact decimal string. */
export function unitsToNumber(raw: bigint, decimals: number): number {
  if (decimals === 0) return Number(raw);
  const digits = raw.toString().padStart(decimals + 1, '0');
  return Number(`${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`);
}

/** The same activity marked as retracted by a reorg (`removed` on the entry and on its log). */
export function asRemoved<T extends AddressActivity | NftActivity>(activity: T): T {
  return { ...activity, removed: true, log: activity.log ? { ...activity.log, removed: true } : activity.log };
}
