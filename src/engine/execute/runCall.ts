// Runs eth_call-style requests (debug_traceCall, trace_call, trace_callMany) on a VM at some
// state, with the recorder for the requested renderers: no nonce check, the call's gas capped,
// funds checked like geth ("insufficient funds for gas * price + value").
import type { Block } from '@ethereumjs/block';
import { Account, Address, KECCAK256_NULL, createZeroAddress, equalsBytes } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import { ServerError } from '../../rpc/errors.js';
import type { ExecutionRecord, RecordNeeds } from '../record/types.js';
import { callBlockFor, type BlockOverrides, type CallBlockCache } from './callBlock.js';
import { callGasLimit, callPaysForGas, callRequestFields, callToTransaction, callTxCommon, type CallRequest } from './callTransaction.js';
import { type ExecutionGuardOptions, guardCheck } from './executionGuard.js';
import { runFastRecorded } from '../interpreter/fastTrace.js';
import { fastCallsEnabled } from '../interpreter/fastCallSwitch.js';
import { runRecordedTransaction } from './runTransaction.js';
import { CachedStorageStateManager } from '../state/stateManagerAt.js';

export interface RunCallOptions {
  vm: VM;
  /** Block whose context the call sees (before overrides and the zero-base-fee rule). */
  block: Block;
  call: CallRequest;
  needs: RecordNeeds;
  /** Highest gas a call may use; also the gas of a call that names none. */
  gasCap: bigint;
  blockOverrides?: BlockOverrides;
  guard?: ExecutionGuardOptions & { timeoutMs: number };
  /** Reuses call blocks across calls (the tracer keeps one). */
  callBlocks?: CallBlockCache;
  /**
   * No later call needs this call's state changes (a single debug_traceCall or trace_call): it may
   * run on the interpreter with the built-in recorder, which writes nothing to `vm`.
   */
  stateless?: boolean;
  /**
   * Called once before anything may write to `vm`'s state (the run on ethereumjs), and not when
   * the interpreter answers: the reads before it are `peek` reads, which leave nothing in an
   * overlay with pure reads (CachedStorageStateManager.pureReads). A borrower of a pooled VM takes
   * its checkpoint here, so a call the interpreter answers costs none.
   */
  beforeWrites?: () => Promise<void>;
}

const MAX_NONCE = 1n << 64n;

/** Runs one call and returns its record. State changes stay in `vm` (trace_callMany chains them). */
export async function runRecordedCall(options: RunCallOptions): Promise<ExecutionRecord> {
  const { vm, gasCap } = options;
  // The same rules as eth_call (chain/callExecution.ts): gas above the cap runs with the cap.
  const call = { ...options.call, gas: callGasLimit(options.call.gas, gasCap) };
  const paysForGas = callPaysForGas(call);
  const blockOptions = { zeroBaseFee: !paysForGas, overrides: options.blockOverrides };
  const block = options.callBlocks ? options.callBlocks.blockFor(options.block, vm.common, blockOptions) : callBlockFor(options.block, vm.common, blockOptions);
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const fields = callRequestFields(call, gasCap, vm.common, baseFee);
  const from = call.from ? new Address(call.from) : createZeroAddress();
  const sm = vm.stateManager;
  const peek = sm instanceof CachedStorageStateManager ? sm : undefined;
  const known = peek && (await peek.peekKnown(from));
  const account = known ? known.account : await sm.getAccount(from);
  const want = fields.value + fields.gasLimit * (fields.type === 2 ? fields.maxFeePerGas : fields.gasPrice);
  const have = account?.balance ?? 0n;
  if (want > have) {
    throw new ServerError(`insufficient funds for gas * price + value: address ${from.toString()} have ${have} want ${want}`);
  }
  const senderHasCode = account !== undefined && !equalsBytes(account.codeHash, KECCAK256_NULL) && !isDelegation(await (peek ? peek.peekCode(from) : sm.getCode(from)));
  let needs = options.needs;
  // A nonce past 64 bits is the transaction constructor's to refuse (the core reads no nonce).
  if (options.stateless && !senderHasCode && (call.nonce ?? 0n) < MAX_NONCE && fastCallsEnabled()) {
    // The interpreter first, on the call's fields (no transaction object); whatever it does not
    // implement runs on ethereumjs.
    const guard = options.guard;
    const fast = await runFastRecorded({ vm, tx: fields, from, sender: known, block, needs, check: guardCheck(guard), yieldEveryMs: guard?.yieldEveryMs });
    if (fast.record) return fast.record;
    needs = fast.fallbackNeeds;
  }
  await options.beforeWrites?.();
  const tx = callToTransaction(call, { common: callTxCommon(vm.common), defaultGas: gasCap, nonce: account?.nonce ?? 0n, baseFee });
  return runRecordedTransaction(
    { vm, tx, block, skipNonce: true, guard: options.guard, prepare: senderHasCode ? () => maskSenderCode(vm, from) : undefined },
    needs,
  );
}

function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/**
 * geth and anvil skip EIP-3607 for calls, so a contract can be simulated as the sender; ethereumjs
 * refuses such a sender. For the run the sender's code hash reads empty (its code stays in the
 * state manager's code cache, read when the recorder looked it up, so re-entering it still runs
 * it); afterwards the hash is put back, so the post-state the recorder reads is unaffected.
 */
async function maskSenderCode(vm: VM, from: Address): Promise<() => Promise<void>> {
  const sm = vm.stateManager;
  const account = (await sm.getAccount(from))!;
  const codeHash = account.codeHash;
  await sm.getCode(from);
  await sm.putAccount(from, new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL));
  return async () => {
    const after = await sm.getAccount(from);
    if (after) await sm.putAccount(from, new Account(after.nonce, after.balance, after.storageRoot, codeHash));
  };
}

export type { BlockOverrides };
