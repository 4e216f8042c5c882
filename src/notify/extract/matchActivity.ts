// Per-webhook selection of a block's transfers: ADDRESS_ACTIVITY by watched address (two set lookups
// per transfer, whatever the number of watched addresses) and NFT_ACTIVITY by contract and token id.
// Payload entries are built once per block and shared by every webhook that selects them.
import type { Hex } from '../../rpc/hex.js';
import { transferToAddressActivity, transferToNftActivity, type ActivityContext, type AddressActivity, type NftActivity } from './activityPayload.js';
import type { Transfer } from './transfers.js';

/** Membership test over lower-case hex addresses (a `Set<string>` fits). */
export interface AddressMatcher {
  has(address: string): boolean;
}

/** Builds (once) and hands out the ADDRESS_ACTIVITY entry of each transfer of one block. */
export interface AddressActivityBuilder {
  activityOf(transfer: Transfer): AddressActivity;
}

export function createAddressActivityBuilder(ctx: ActivityContext): AddressActivityBuilder {
  const built = new Map<Transfer, AddressActivity>();
  return {
    activityOf(transfer) {
      let activity = built.get(transfer);
      if (!activity) {
        activity = transferToAddressActivity(transfer, ctx);
        built.set(transfer, activity);
      }
      return activity;
    },
  };
}

/** The transfers of the block from or to a watched address, as activity entries in block order. */
export function selectAddressActivity(transfers: readonly Transfer[], watched: AddressMatcher, builder: AddressActivityBuilder): AddressActivity[] {
  const out: AddressActivity[] = [];
  for (const transfer of transfers) {
    if (watched.has(transfer.from) || watched.has(transfer.to)) out.push(builder.activityOf(transfer));
  }
  return out;
}

/** An NFT filter as the webhook stores it: a contract, and one token id (decimal) or all of them. */
export interface NftFilterSpec {
  contractAddress: string;
  tokenId: string | null;
}

/** What an NFT_ACTIVITY webhook follows: every NFT of the network, or listed contracts/tokens. */
export interface NftMatcher {
  /** True: every ERC-721 and ERC-1155 transfer of the network. */
  readonly everyNft: boolean;
  /** Contract → the followed token ids, or null for every token of the contract. */
  readonly contracts: ReadonlyMap<Hex, ReadonlySet<bigint> | null>;
}

export function createNftMatcher(filters: readonly NftFilterSpec[], everyNft = false): NftMatcher {
  const contracts = new Map<Hex, Set<bigint> | null>();
  for (const filter of filters) {
    const contract = filter.contractAddress.toLowerCase() as Hex;
    if (filter.tokenId === null) {
      contracts.set(contract, null);
      continue;
    }
    const current = contracts.get(contract);
    if (current === null) continue;
    const ids = current ?? new Set<bigint>();
    ids.add(BigInt(filter.tokenId));
    contracts.set(contract, ids);
  }
  return { everyNft, contracts };
}

/**
 * The NFT transfers the matcher follows. An ERC-1155 batch keeps only the followed ids (and is
 * dropped when none is followed).
 */
export function selectNftActivity(transfers: readonly Transfer[], matcher: NftMatcher, blockNumber: bigint): NftActivity[] {
  const out: NftActivity[] = [];
  for (const transfer of transfers) {
    if (transfer.category !== 'erc721' && transfer.category !== 'erc1155') continue;
    if (matcher.everyNft) {
      out.push(transferToNftActivity(transfer, blockNumber));
      continue;
    }
    if (!matcher.contracts.has(transfer.contract)) continue;
    const ids = matcher.contracts.get(transfer.contract);
    if (!ids) {
      out.push(transferToNftActivity(transfer, blockNumber));
    } else if (transfer.category === 'erc721') {
      if (ids.has(transfer.tokenId)) out.push(transferToNftActivity(transfer, blockNumber));
    } else {
      const items = transfer.items.filter((item) => ids.has(item.tokenId));
      if (items.length) out.push(transferToNftActivity(transfer, blockNumber, items));
    }
  }
  return out;
}
