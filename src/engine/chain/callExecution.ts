// Runs eth_call / eth_estimateGas requests on an isolated copy of the state at a block, with
// optional state overrides, like geth: no nonce check, no fee charged when no fee is given (the
// block's base fee is then treated as zero), gas capped by the configured gas cap, under an
// execution guard (deadline, cancellation, yielding). Works on the live chain or a worker's reader.
import type { Block } from '@ethereumjs/block';
import type { Common, StateManagerInterface } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, KECCAK256_NULL, bytesToHex, createZeroAddress, equalsBytes } from '@ethereumjs/util';
import { type VM, runTx } from '@ethereumjs/vm';
import { ExecutionRevertedError, RpcError, ServerError } from '../../rpc/errors.js';
import { callGasLimit, callTxCommon } from '../execute/callTransaction.js';
import { type ExecutionGuardOptions, guardCheck, installExecutionGuard } from '../execute/executionGuard.js';
import { PrefetchedState, runFastCall } from '../interpreter/fastCall.js';
import { fastCallsEnabled } from '../interpreter/fastCallSwitch.js';
import type { ChainCore } from './chainCore.js';
import type { ChainReader } from './chainReader.js';
import { decodeRevertReason } from '../render/revertReason.js';
import { evmErrorToGethText } from './evmErrorText.js';
import { type StateOverrides, applyStateOverrides } from './stateOverrides.js';
import { type TransactionRequest, impersonate, requestCallFields, requestToTransaction, requestTxType } from './transactionRequest.js';

/** What calls need from a chain: the live core (see callEnvOfCore) or a trace worker's reader. */
export interface CallEnv {
  readonly chainId: bigint;
  readonly common: Common;
  /** Highest gas a call may use, and the gas of a call that names none. */
  readonly gasCap: bigint;
  /** Lends a pooled VM on `root` (see ChainView.withVm). */
  withReadVm<T>(root: Uint8Array, fn: (vm: VM) => Promise<T>): Promise<T>;
  /** A fresh VM on `stateRoot` whose state overrides may be written to. */
  createVm(options: { stateRoot: Uint8Array }): Promise<VM>;
  /** `block` with a zero base fee (memoised): the context of calls that name no fee. */
  zeroBaseFeeBlock(block: Block): Block;
}

/** Deadline, cancellation and yielding of one call or one whole estimate. */
export type CallGuard = ExecutionGuardOptions & { timeoutMs: number };

/** The live chain core as a CallEnv. */
export function callEnvOfCore(core: ChainCore): CallEnv {
  return {
    chainId: core.chainId,
    common: core.common,
    gasCap: core.config.gasCap,
    withReadVm: (root, fn) => core.withReadVm(root, fn),
    createVm: (options) => core.createVm(options),
    zeroBaseFeeBlock: (block) => core.zeroBaseFeeBlock(block),
  };
}

/** A read-only chain reader (a trace worker's) as a CallEnv, with the service's gas cap. */
export function callEnvOfReader(reader: ChainReader, gasCap: bigint): CallEnv {
  return {
    chainId: reader.chainId,
    common: reader.common,
    gasCap,
    withReadVm: (root, fn) => reader.withVm(root, fn),
    createVm: (options) => reader.createVm(options),
    zeroBaseFeeBlock: (block) => reader.zeroBaseFeeBlock(block),
  };
}

/** Block context and state root a call runs on. */
export interface CallTarget {
  block: Block;
  stateRoot: Uint8Array;
}

export interface CallOutcome {
  returnValue: Uint8Array;
  /** Gas the transaction would pay (intrinsic + execution, after refund). */
  gasUsed: bigint;
  gasRefund: bigint;
  /** EVM halt reason from ethereumjs (`revert`, `out of gas`, ...), undefined on success. */
  error: string | undefined;
  /** Addresses and slots the run accessed, when asked for (EIP-2930 shape, hex). */
  accessList?: { address: string; storageKeys: string[] }[];
  /** When asked for and the interpreter ran it: FastCallOutcome.gasNeeded. */
  gasNeeded?: bigint;
  /** The call went straight to a precompile (its failure is the precompile's error, not a revert). */
  toPrecompile?: boolean;
}

/** A prepared call that can be run several times with different gas limits (gas estimation). */
export interface CallSession {
  readonly from: Address;
  readonly stateManager: StateManagerInterface;
  /** Per-gas price the call pays (0 when the request names no fee). */
  readonly feeCap: bigint;
  /** Runs the call with `gasLimit`; the state is restored afterwards. */
  run(gasLimit: bigint, options?: { reportAccessList?: boolean; trackGasNeed?: boolean }): Promise<CallOutcome>;
}

/** EIP-7702 delegated code (0xef0100 ‖ address): such senders may send transactions anyway. */
function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

function hasFee(request: TransactionRequest): boolean {
  return [request.gasPrice, request.maxFeePerGas, request.maxPriorityFeePerGas].some((v) => v !== undefined && v > 0n);
}

async function createSession(env: CallEnv, vm: VM, request: TransactionRequest, target: CallTarget, guard: CallGuard | undefined): Promise<CallSession> {
  const stateManager = vm.stateManager;
  const from = request.from ? new Address(request.from) : createZeroAddress();
  const charged = hasFee(request);
  const block = charged ? target.block : env.zeroBaseFeeBlock(target.block);
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const type = requestTxType(request);
  const priority = request.maxPriorityFeePerGas ?? 0n;
  // A tip alone gets the block's base fee plus the tip as its fee cap (debug_traceCall's rule too: callRequestFields).
  const maxFee = request.maxFeePerGas ?? baseFee + priority;
  const gasPrice = request.gasPrice ?? 0n;
  const feeCap = type === 0 || type === 1 ? gasPrice : maxFee;
  const account = await stateManager.getAccount(from);
  const balance = account?.balance ?? 0n;
  const senderHasCode = account !== undefined && !equalsBytes(account.codeHash, KECCAK256_NULL) && !isDelegation(await stateManager.getCode(from));
  const value = request.value ?? 0n;
  // A call straight to a precompile (ethereumjs keys them by unprefixed hex address).
  const toPrecompile = request.to !== undefined && vm.evm.precompiles.has(bytesToHex(request.to).slice(2));
  // The state every run starts from is the same (ethereumjs's runs are reverted; the interpreter
  // writes nothing), so what one run on the interpreter read, the next need not read again.
  let base: PrefetchedState | undefined;
  return {
    from,
    stateManager,
    feeCap,
    async run(gasLimit, options = {}) {
      if (balance < value + gasLimit * feeCap) {
        throw new ServerError(`insufficient funds for gas * price + value: address ${from} have ${balance} want ${value + gasLimit * feeCap}`);
      }
      const fields = { type, nonce: account?.nonce ?? 0n, gasLimit, gasPrice, maxFeePerGas: maxFee, maxPriorityFeePerGas: priority, chainId: env.chainId };
      // The synchronous interpreter first when switched on (it writes nothing to the state
      // manager), on the request's fields; whatever it does not implement, and the access-list
      // report, run on ethereumjs, which needs the transaction object.
      if (!senderHasCode && !options.reportAccessList && fastCallsEnabled()) {
        base ??= new PrefetchedState(stateManager);
        const fast = await runFastCall({ vm, tx: requestCallFields(request, fields), from, block, base, check: guardCheck(guard), yieldEveryMs: guard?.yieldEveryMs, trackGasNeed: options.trackGasNeed });
        if (fast) return { returnValue: fast.returnValue, gasUsed: fast.gasUsed, gasRefund: fast.gasRefund, error: fast.error, gasNeeded: fast.gasNeeded, toPrecompile };
      }
      const tx = impersonate(requestToTransaction(request, fields, callTxCommon(env.common), { freeze: false }), from);
      await stateManager.checkpoint();
      try {
        if (senderHasCode) {
          // geth and anvil skip EIP-3607 for calls, so contracts can be simulated as senders. For
          // the length of this checkpoint the sender's code hash reads empty; its code stays in
          // the code cache (read above), so re-entering the sender still runs it. Only
          // EXTCODEHASH of the sender differs during such a call.
          await stateManager.putAccount(from, new Account(account!.nonce, account!.balance, account!.storageRoot, KECCAK256_NULL));
        }
        const result = await runTx(vm, { tx, block, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true, reportAccessList: options.reportAccessList });
        return {
          returnValue: result.execResult.returnValue,
          gasUsed: result.totalGasSpent,
          gasRefund: result.gasRefund ?? 0n,
          error: result.execResult.exceptionError?.error,
          accessList: result.accessList,
          toPrecompile,
        };
      } catch (error) {
        // The guard's timeout and cancellation (and any other RPC error) pass unchanged.
        if (error instanceof RpcError) throw error;
        const message = (error as Error).message.split(' (vm hf=')[0]!.split(' (block number=')[0]!;
        throw new ServerError(message.replace(/^INTRINSIC_GAS_TOO_LOW: /, 'intrinsic gas too low: '));
      } finally {
        await stateManager.revert();
      }
    },
  };
}

/** Runs `fn` on `vm` with `guard` installed (every run of the session under one deadline). */
async function guarded<T>(vm: VM, guard: CallGuard | undefined, fn: () => Promise<T>): Promise<T> {
  if (!guard) return fn();
  const uninstall = installExecutionGuard(vm, guard, guard.timeoutMs);
  try {
    return await fn();
  } finally {
    uninstall();
  }
}

/**
 * Runs `fn` with a call session for `request` on `target`. Without overrides the VM comes from
 * the env's pool; with overrides a fresh overlay gets them applied first. With `guard`, every run
 * of the session shares its deadline and signal.
 */
export async function withCallSession<T>(
  env: CallEnv,
  request: TransactionRequest,
  target: CallTarget,
  overrides: StateOverrides | undefined,
  fn: (session: CallSession) => Promise<T>,
  guard?: CallGuard,
): Promise<T> {
  if (!overrides) {
    return env.withReadVm(target.stateRoot, async (vm) => guarded(vm, guard, async () => fn(await createSession(env, vm, request, target, guard))));
  }
  const vm = await env.createVm({ stateRoot: target.stateRoot });
  await applyStateOverrides(vm.stateManager as MerkleStateManager, overrides);
  return guarded(vm, guard, async () => fn(await createSession(env, vm, request, target, guard)));
}

/** Turns a failed call outcome into the RPC error geth returns (code 3 for reverts). */
export function callOutcomeToError(outcome: CallOutcome): Error | undefined {
  if (outcome.error === undefined) return undefined;
  if (outcome.error === 'revert' && !outcome.toPrecompile) {
    return new ExecutionRevertedError(bytesToHex(outcome.returnValue), decodeRevertReason(outcome.returnValue));
  }
  return new ServerError(evmErrorToGethText(outcome.error, outcome.toPrecompile));
}

/** eth_call: returns the output, or throws the revert / halt error (or the guard's timeout). */
export async function executeCall(env: CallEnv, request: TransactionRequest, target: CallTarget, overrides?: StateOverrides, guard?: CallGuard): Promise<Uint8Array> {
  const gasLimit = callGasLimit(request.gas, env.gasCap);
  const outcome = await withCallSession(env, request, target, overrides, (session) => session.run(gasLimit), guard);
  const error = callOutcomeToError(outcome);
  if (error) throw error;
  return outcome.returnValue;
}
