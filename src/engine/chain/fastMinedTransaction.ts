// A transaction of a block being built, run on the synchronous interpreter (fastCall.ts) instead of
// ethereumjs's runTx: the run's post-state (the sender's refund and the coinbase's tip paid, EIP-161
// deletions, EIP-6780 destructions) written into the miner's state manager, and the result handed
// to the block builder as runTx would (its receipt, bloom and gas), so the builder's tries, header
// and system calls are ethereumjs's as before. Whatever the interpreter does not take (fastCall.ts's
// hand-overs: other transaction types and forks, BLOCKHASH, senders with code, an insufficient
// balance, a fee below the base fee) and anything runTx would refuse (a wrong nonce, no room in the
// block) returns undefined before anything is written, and the caller runs it on ethereumjs.
// The builder's bookkeeping fields are reached into here, as the miner pins @ethereumjs/vm exactly
// (ethereumjsVersions.ts).
import { type Block, type HeaderData, createBlock } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToUnpaddedBytes } from '@ethereumjs/util';
import { Bloom, type BlockBuilder, type RunTxResult, type VM } from '@ethereumjs/vm';
import type { ExecutionRecord } from '../record/types.js';
import { callFieldsOf } from '../interpreter/callFields.js';
import { type FastCallOutcome, runFastCall, settleFees } from '../interpreter/fastCall.js';
import { fastCallsEnabled } from '../interpreter/fastCallSwitch.js';
import { runFastRecorded } from '../interpreter/fastTrace.js';
import { addressBytes, bytesToBig, wordBytes } from '../interpreter/words.js';
import { StateMiss, type WorldState } from '../interpreter/worldState.js';
import { CachedStorageStateManager } from '../state/stateManagerAt.js';
import { MINED_RECORD_NEEDS } from './minedRecordStore.js';
import { senderOf } from './txSender.js';

/** The block builder's running totals, which `addTransaction` keeps and `build` reads. */
interface BuilderTotals {
  gasUsed: bigint;
  transactions: TypedTransaction[];
  transactionResults: RunTxResult[];
  _minerValue: bigint;
  checkpointed: boolean;
  headerData: HeaderData;
}

export interface FastMinedOptions {
  vm: VM;
  builder: BlockBuilder;
  tx: TypedTransaction;
  /** A block with the header being built (the interpreter's environment). */
  block: Block;
  /** Record frames and logs for the mined-record store. */
  record: boolean;
  /** Gives the event loop a turn after this much busy time (ms). */
  yieldEveryMs: number;
}

export interface FastMined {
  result: RunTxResult;
  record: ExecutionRecord | undefined;
}

/** One account's write, worked out before anything is written. */
type AccountWrite =
  | { kind: 'delete'; address: Address }
  | { kind: 'put'; address: Address; nonce: bigint; balance: bigint; isNew: boolean; code: Uint8Array | undefined; storage: Map<bigint, bigint> };

/** Transactions this thread mined on the interpreter, and those it left to ethereumjs. */
export const fastMinedStats = { mined: 0, handedOver: 0 };

/** Runs `tx` into the block on the interpreter; undefined when ethereumjs must run it (nothing was written). */
export async function runMinedOnInterpreter(options: FastMinedOptions): Promise<FastMined | undefined> {
  const mined = await tryOnInterpreter(options);
  if (mined) fastMinedStats.mined++;
  else fastMinedStats.handedOver++;
  return mined;
}

async function tryOnInterpreter(options: FastMinedOptions): Promise<FastMined | undefined> {
  const { vm, tx, block } = options;
  if (!fastCallsEnabled() || tx.type > 2) return undefined;
  const state = vm.stateManager;
  if (!(state instanceof CachedStorageStateManager)) return undefined;
  const totals = options.builder as unknown as BuilderTotals;
  const gasLimit = block.header.gasLimit;
  if (tx.gasLimit > gasLimit - totals.gasUsed) return undefined;
  const from = senderOf(tx);
  // runTx refuses a nonce other than the sender's (the run itself does not look): refused here before any run.
  if (((await state.peekAccount(from))?.nonce ?? 0n) !== tx.nonce) return undefined;

  const fields = callFieldsOf(tx);
  let outcome: FastCallOutcome | undefined;
  let record: ExecutionRecord | undefined;
  if (options.record) {
    const recorded = await runFastRecorded({ vm, tx: fields, from, block, needs: MINED_RECORD_NEEDS, yieldEveryMs: options.yieldEveryMs });
    if (recorded.record === undefined) return undefined;
    outcome = recorded.outcome;
    record = recorded.record;
  } else {
    outcome = await runFastCall({ vm, tx: fields, from, block, yieldEveryMs: options.yieldEveryMs });
    if (outcome === undefined) return undefined;
  }

  const baseFee = block.header.baseFeePerGas ?? 0n;
  const coinbase = block.header.coinbase;
  let writes: AccountWrite[];
  try {
    settleFees(outcome, tx.gasLimit, bytesToBig(from.bytes), bytesToBig(coinbase.bytes), baseFee);
    writes = postStateWrites(outcome.world);
  } catch (error) {
    // The settlement read an account the run never loaded: ethereumjs answers instead.
    if (error instanceof StateMiss) return undefined;
    throw error;
  }

  // From here on the block's state changes: inside the builder's checkpoint, as addTransaction's.
  if (!totals.checkpointed) {
    await vm.evm.journal.checkpoint();
    totals.checkpointed = true;
  }
  for (const write of writes) await apply(state, write);

  const gasUsed = outcome.gasUsed;
  const logs = outcome.logs.map((log): [Uint8Array, Uint8Array[], Uint8Array] => [addressBytes(log.address), log.topics.map(wordBytes), log.data]);
  const bloom = new Bloom(undefined, vm.common);
  for (const [address, topics] of logs) {
    bloom.add(address);
    for (const topic of topics) bloom.add(topic);
  }
  const minerValue = gasUsed * (outcome.gasPrice - baseFee);
  const result = {
    totalGasSpent: gasUsed,
    blockGasSpent: gasUsed,
    amountSpent: gasUsed * outcome.gasPrice,
    minerValue,
    gasRefund: outcome.gasRefund,
    bloom,
    createdAddress: outcome.createdAddress === undefined ? undefined : new Address(addressBytes(outcome.createdAddress)),
    receipt: { status: outcome.error === undefined ? 1 : 0, cumulativeBlockGasUsed: totals.gasUsed + gasUsed, bitvector: bloom.bitvector, logs },
    execResult: { returnValue: outcome.returnValue, executionGasUsed: gasUsed - outcome.intrinsicGas, logs, gasRefund: outcome.gasRefund },
  } as unknown as RunTxResult;
  totals.transactions.push(tx);
  totals.transactionResults.push(result);
  totals.gasUsed += gasUsed;
  totals._minerValue += minerValue;
  return { result, record };
}

/** The block the builder's transactions run in (its header data as addTransaction passes it to runTx). */
export function builderBlock(builder: BlockBuilder, common: VM['common']): Block {
  return createBlock({ header: (builder as unknown as BuilderTotals).headerData }, { common });
}

/**
 * The writes that turn the base state into the run's post-state: an account created and destroyed
 * in the run, or written and left empty (EIP-161), is deleted when it existed; any other account
 * written to (balance, nonce, code or storage) is put.
 */
function postStateWrites(world: WorldState): AccountWrite[] {
  const writes: AccountWrite[] = [];
  for (const account of world.touched()) {
    const a = account.address;
    const created = world.created.has(a);
    if (!world.written.has(a) && !created && account.storage.size === 0) continue;
    const address = new Address(addressBytes(a));
    const existed = world.baseAccount(a) !== undefined;
    if (!world.existsAfter(a)) {
      if (existed) writes.push({ kind: 'delete', address });
      continue;
    }
    const code = created ? world.code(account) : undefined;
    writes.push({ kind: 'put', address, nonce: account.nonce, balance: account.balance, isNew: created || !existed, code, storage: account.storage });
  }
  return writes;
}

async function apply(state: CachedStorageStateManager, write: AccountWrite): Promise<void> {
  if (write.kind === 'delete') {
    await state.deleteAccount(write.address);
    return;
  }
  if (write.isNew) {
    // A new account, or a contract created where only a balance was (its storage was empty: a
    // create on non-empty storage fails).
    await state.putAccount(write.address, new Account(write.nonce, write.balance));
    if (write.code !== undefined && write.code.length > 0) await state.putCode(write.address, write.code);
  } else {
    await state.modifyAccountFields(write.address, { nonce: write.nonce, balance: write.balance });
  }
  for (const [slot, value] of write.storage) await state.putStorage(write.address, wordBytes(slot), bigIntToUnpaddedBytes(value));
}
