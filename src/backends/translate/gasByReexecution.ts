// The root's execution gas before the refund (Parity root `gasUsed`) of a mined transaction from a
// geth-family node, without the node's JavaScript engine: the embedded engine re-runs the
// transaction on exactly the state the node's default-mode prestateTracer lists (every account and
// slot the transaction read or wrote, before it ran), in the block's context (its header), under
// the remote chain's rules (fork/remoteHardfork.ts). A read of anything the prestate does not list
// stops the run (the list was not the whole story), and the answer counts only when the engine's
// receipt figure and outcome equal the node's: otherwise undefined, and the caller asks the
// JavaScript refund tracer as before. So the figure is either the engine's exact one, verified
// against the node, or not given.
import { createBlockFromRPC, type JSONRPCBlock } from '@ethereumjs/block';
import type { Common, Hardfork } from '@ethereumjs/common';
import { createTxFromRPC } from '@ethereumjs/tx';
import { createAddressFromString } from '@ethereumjs/util';
import { createVM, type VM } from '@ethereumjs/vm';
import { createPinnedCommon } from '../../engine/execute/gethConfig.js';
import { runRecordedTransaction } from '../../engine/execute/runTransaction.js';
import { bytesToHex, type Hex } from '../../rpc/hex.js';
import { remoteHardfork, type RemoteHeader } from '../fork/remoteHardfork.js';
import type { ForkAccount, ForkStateReader } from '../fork/forkState.js';
import { ForkStateManager } from '../fork/forkStateManager.js';
import { accountsFromPrestateDiff } from './parsePrestateDiff.js';

/** A read of state the prestate does not list: the re-execution is abandoned. */
class NotInPrestate extends Error {}

const commons = new Map<string, Common>();
function commonFor(chainId: bigint, hardfork: string): Common {
  const key = `${chainId}/${hardfork}`;
  let common = commons.get(key);
  if (!common) commons.set(key, (common = createPinnedCommon({ chainId, hardfork: hardfork as Hardfork })));
  return common;
}

/**
 * Idle VMs per Common (building one costs milliseconds, more than the run): a run takes one and
 * gives it back only when the run ended normally, its state manager emptied for the next.
 */
const idle = new Map<Common, { vm: VM; state: ForkStateManager }[]>();
const IDLE_PER_COMMON = 4;

async function withVm<T>(common: Common, reader: ForkStateReader, run: (vm: VM) => Promise<T>): Promise<T> {
  const pooled = idle.get(common)?.pop();
  let entry = pooled;
  if (entry) entry.state.reuse(reader);
  else {
    const state = new ForkStateManager(reader, common);
    entry = { vm: await createVM({ common: common.copy(), stateManager: state, blockchain: NO_BLOCKCHAIN as never }), state };
  }
  const result = await run(entry.vm);
  const list = idle.get(common) ?? [];
  if (list.length < IDLE_PER_COMMON) list.push(entry);
  idle.set(common, list);
  return result;
}

/** The prestate as a state reader: what it lists, and nothing else (the coinbase excepted, see below). */
function prestateReader(prestate: unknown, coinbase: string): ForkStateReader {
  const accounts = accountsFromPrestateDiff({ pre: prestate, post: {} });
  return {
    async account(address: Hex) {
      const listed = accounts.get(address.toLowerCase());
      if (!listed) {
        // Some nodes leave the fee recipient out when the transaction itself never touched it; the
        // engine then only credits it the fee, which no gas figure depends on.
        if (address.toLowerCase() === coinbase) return undefined;
        throw new NotInPrestate(address);
      }
      const pre = listed.pre;
      if (!pre || (pre.nonce === 0n && pre.balance === 0n && pre.code.length === 0)) return undefined;
      const account: ForkAccount = { nonce: pre.nonce, balance: pre.balance, code: pre.code, codeHash: pre.codeHash };
      return account;
    },
    async storage(address: Hex, slot: Hex) {
      const value = accounts.get(address.toLowerCase())?.storage.get(slot.toLowerCase())?.pre;
      if (value === undefined) throw new NotInPrestate(`${address} ${slot}`);
      if (value === 0n) return new Uint8Array(0);
      let hex = value.toString(16);
      if (hex.length % 2) hex = `0${hex}`;
      return Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));
    },
  };
}

/** BLOCKHASH needs headers this re-execution does not have: it stops the run. */
const NO_BLOCKCHAIN = {
  async getBlock(): Promise<never> {
    throw new NotInPrestate('BLOCKHASH');
  },
  async putBlock() {},
  shallowCopy() {
    return NO_BLOCKCHAIN;
  },
};

export interface ReexecutionInput {
  /** The transaction as eth_getTransactionByHash gave it. */
  txJson: unknown;
  /** Its block's header (eth_getBlockByHash without transactions). */
  header: unknown;
  /** The node's default-mode prestateTracer result for the transaction. */
  prestate: unknown;
  /** The receipt's gas used and whether the node's callTracer shows the root failing. */
  receiptGasUsed: bigint;
  rootFailed: boolean;
  /** Rules of headers whose fork the fields cannot tell (remoteHardfork.ts); default prague. */
  configuredHardfork?: string;
}

/** Parity's root gasUsed, verified against the node's receipt; undefined when the re-execution cannot vouch for it. */
export async function executionGasByReexecution(input: ReexecutionInput): Promise<bigint | undefined> {
  try {
    const txJson = input.txJson as { chainId?: unknown; hash?: unknown; from?: unknown };
    const header = input.header as RemoteHeader & { miner?: unknown; hash?: unknown };
    if (typeof txJson.chainId !== 'string' || typeof header?.number !== 'string' || typeof header.miner !== 'string') return undefined;
    const chainId = BigInt(txJson.chainId);
    const common = commonFor(chainId, remoteHardfork(chainId, header, input.configuredHardfork ?? 'prague'));
    const tx = await createTxFromRPC(input.txJson as Parameters<typeof createTxFromRPC>[0], { common, freeze: false });
    if (typeof txJson.hash !== 'string' || bytesToHex(tx.hash()) !== txJson.hash.toLowerCase() || typeof txJson.from !== 'string') return undefined;
    // The sender as the node names it (signature recovery costs more than the run; the node's
    // prestate and receipt are trusted as much, and the receipt check catches a wrong one).
    const sender = createAddressFromString(txJson.from);
    Object.defineProperty(tx, 'getSenderAddress', { value: () => sender, configurable: true });
    const block = createBlockFromRPC({ ...(input.header as JSONRPCBlock), transactions: [] }, [], { common, skipConsensusFormatValidation: true });
    const guard = { deadlineMs: performance.now() + 5_000, yieldEveryMs: 5, now: () => performance.now(), timeoutMs: 5_000 };
    const record = await withVm(common, prestateReader(input.prestate, header.miner.toLowerCase()), (vm) => runRecordedTransaction({ vm, tx, block, guard }, { state: false, steps: undefined }));
    if (record.tx.gasUsed !== input.receiptGasUsed || (record.tx.error !== undefined) !== input.rootFailed) return undefined;
    return record.tx.executionGasUsed;
  } catch {
    // Not listed in the prestate, a transaction or header this engine cannot read, an invalid
    // transaction on this state, a timeout: the node's own refund tracer decides instead.
    return undefined;
  }
}
