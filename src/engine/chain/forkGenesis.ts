// Fork mode's starting point (issue 13 item 3): the remote block the dev chain continues from. Its
// header becomes the local chain's first block (same number, same hash, same state root), the dev
// accounts are funded on top of its state (balances set, nonces and code kept, as anvil does),
// and the data dir remembers which remote and block it was forked from. The setup itself is read
// from the remote by backends/fork/forkModeSetup.ts.
import { type Block, createBlock, createBlockHeaderFromRPC } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, bytesToHex } from '@ethereumjs/util';
import { createHash } from 'node:crypto';
import { ServiceError } from '../../rpc/errors.js';
import type { ForkPoint, RemoteCaller } from '../state/remoteTrieNodes.js';
import type { DevAccount } from './devAccounts.js';

/** A fork point resolved against the remote, with what the chain is created from. */
export interface ForkSetup {
  point: ForkPoint;
  /** The fork block as `eth_getBlockByNumber(n, false)` returned it. */
  header: Record<string, unknown>;
  chainId: bigint;
  hardfork: string;
  /** Reads the remote for the chain's lifetime (backends/fork/forkModeSetup.ts builds it). */
  client: RemoteCaller & { close(): void };
}

/** What a data dir records of its fork: the block, and a digest of the URL (never the URL). */
export function forkFingerprint(point: ForkPoint): { blockNumber: string; blockHash: string; url: string } {
  return { blockNumber: point.blockNumber.toString(), blockHash: point.blockHash, url: createHash('sha256').update(point.url).digest('hex').slice(0, 16) };
}

/** The fork block as a local block; throws when its hash is not the remote's (other rules). */
export function createForkBlock(common: Common, setup: ForkSetup): Block {
  const header = createBlockHeaderFromRPC(setup.header as never, { common, skipConsensusFormatValidation: true });
  const block = createBlock({ header }, { common, skipConsensusFormatValidation: true });
  if (bytesToHex(block.hash()) !== setup.point.blockHash) {
    throw new ServiceError(`the fork block ${setup.point.blockNumber} hashes to ${bytesToHex(block.hash())} here, not ${setup.point.blockHash}`, {
      details: `its header does not fit the ${setup.hardfork} rules; pass --hardfork with the remote's`,
    });
  }
  return block;
}

/** Funds the dev accounts on the fork state (nonce and code kept); returns the new state root. */
export async function writeForkState(state: MerkleStateManager, balanceWei: bigint, accounts: readonly DevAccount[]): Promise<Uint8Array> {
  for (const dev of accounts) {
    const account = (await state.getAccount(dev.address)) ?? new Account();
    account.balance = balanceWei;
    await state.putAccount(dev.address, account);
  }
  await state.flush();
  return state.getStateRoot();
}
