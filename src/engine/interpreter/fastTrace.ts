// Runs a traced call (debug_traceCall, trace_call) on the interpreter with the recorder built in
// (fastRecorder.ts) and returns its ExecutionRecord, equal to the one the ethereumjs path records.
// Returns undefined when the core cannot take the request (steps asked for, anything fastCall.ts or
// the recorder hands over): the caller then runs it on ethereumjs. Nothing is written to the VM's
// state, so a call whose state changes must carry on (trace_callMany's later calls) is not for here.
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { type Address, bigIntToBytes, bytesToBigInt, generateAddress } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { ExecutionRecord, RecordNeeds } from '../record/types.js';
import { type FastCallOutcome, fastCallStats, runFastCall, unsupportedReason } from './fastCall.js';
import { createFastRecorder } from './fastRecorder.js';
import { StateMiss } from './worldState.js';

export interface FastTraceOptions {
  vm: VM;
  tx: TypedTransaction;
  from: Address;
  block: Block;
  needs: RecordNeeds;
  check?: () => void;
  yieldEveryMs?: number;
  onFallback?: (reason: string) => void;
}

const precompileSets = new WeakMap<VM, Set<bigint>>();

function precompileSetOf(vm: VM): Set<bigint> {
  let set = precompileSets.get(vm);
  if (set === undefined) precompileSets.set(vm, (set = new Set([...vm.evm.precompiles.keys()].map((a) => BigInt('0x' + a.replace(/^0x/, ''))))));
  return set;
}

/** The record of `tx` run on the interpreter, or undefined when it must run on ethereumjs. */
export async function runFastRecordedCall(options: FastTraceOptions): Promise<ExecutionRecord | undefined> {
  return (await runFastRecorded(options))?.record;
}

/** The record and the run's outcome (the differential fuzzer compares both). */
export async function runFastRecorded(options: FastTraceOptions): Promise<{ record: ExecutionRecord; outcome: FastCallOutcome } | undefined> {
  const { vm, tx, block, needs } = options;
  const reason = needs.steps ? 'steps are recorded' : unsupportedReason(vm, tx);
  if (reason !== undefined) {
    fastCallStats.handedOver++;
    options.onFallback?.(reason);
    return undefined;
  }
  const common = vm.common;
  const from = bytesToBigInt(options.from.bytes);
  const coinbase = bytesToBigInt(block.header.coinbase.bytes);
  const nonce = tx.to === undefined ? ((await vm.stateManager.getAccount(options.from))?.nonce ?? 0n) : 0n;
  const precompiles = precompileSetOf(vm);
  const recorder = createFastRecorder({
    needs,
    isPrecompile: (address) => precompiles.has(address),
    pairingGas: { base: common.param('bn254PairingGas'), perPair: common.param('bn254PairingWordGas') },
    from,
    to: tx.to === undefined ? undefined : bytesToBigInt(tx.to.bytes),
    coinbase,
    created: tx.to === undefined ? bytesToBigInt(generateAddress(options.from.bytes, bigIntToBytes(nonce))) : undefined,
  });
  const outcome = await runFastCall({ vm, tx, from: options.from, block, hooks: recorder.hooks, check: options.check, yieldEveryMs: options.yieldEveryMs, onFallback: options.onFallback });
  if (!outcome) return undefined;
  const world = outcome.world;
  try {
    if (needs.state) {
      // runTx's end of a transaction: the unused gas back to the sender, the tip to the coinbase.
      const sender = world.get(from);
      world.setBalance(sender, sender.balance + (tx.gasLimit - outcome.gasUsed) * outcome.gasPrice);
      const miner = world.get(coinbase);
      world.setBalance(miner, miner.balance + outcome.gasUsed * (outcome.gasPrice - (block.header.baseFeePerGas ?? 0n)));
    }
    const record = recorder.finish({ world, gasUsed: outcome.gasUsed, gasPrice: outcome.gasPrice, gasLimit: tx.gasLimit, intrinsicGas: outcome.intrinsicGas, value: tx.value, hardfork: common.hardfork() });
    return { record, outcome };
  } catch (error) {
    // The post-state read something the run never loaded: let ethereumjs answer.
    if (error instanceof StateMiss) {
      options.onFallback?.('post-state read');
      return undefined;
    }
    throw error;
  }
}
