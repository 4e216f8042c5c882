// Runs a traced call (debug_traceCall, trace_call) on the interpreter with the recorder built in
// (fastRecorder.ts) and returns its ExecutionRecord, equal to the one the ethereumjs path records.
// Steps (struct logs, vmTrace) included. When the core cannot take the request (anything fastCall.ts
// or the recorder hands over) the caller runs it on ethereumjs, with the needs returned here: their
// budget already holds what this run charged, so the rerun pays only for what goes beyond it.
// Nothing is written to the VM's state, so a call whose state changes must carry on
// (trace_callMany's later calls) is not for here.
import type { Block } from '@ethereumjs/block';
import { type Address, bigIntToBytes, generateAddress } from '@ethereumjs/util';
import type { VM } from '@ethereumjs/vm';
import type { ExecutionRecord, RecordNeeds, StepBudget } from '../record/types.js';
import type { CallFields } from './callFields.js';
import { type FastCallOutcome, fastCallStats, runFastCall, settleFees, unsupportedReason } from './fastCall.js';
import { createFastRecorder } from './fastRecorder.js';
import type { OpcodeTable } from './fastStepRecorder.js';
import { type ReplayBudget, createReplayBudget } from './replayBudget.js';
import { StateMiss } from './worldState.js';
import { CachedStorageStateManager, type KnownAccount } from '../state/stateManagerAt.js';
import { bytesToBig } from './words.js';

export interface FastTraceOptions {
  vm: VM;
  /** The transaction's fields (a call's, or a mined transaction's: callFieldsOf). */
  tx: CallFields;
  from: Address;
  /** See FastCallOptions.sender. */
  sender?: KnownAccount;
  block: Block;
  needs: RecordNeeds;
  check?: () => void;
  yieldEveryMs?: number;
  onFallback?: (reason: string) => void;
}

const precompileSets = new WeakMap<VM, Set<bigint>>();
const opcodeTables = new WeakMap<VM, OpcodeTable>();

/** ethereumjs's opcode table on `vm` as its step events show it. */
function opcodeTableOf(vm: VM): OpcodeTable {
  let table = opcodeTables.get(vm);
  if (table === undefined) {
    const map = (vm.evm as unknown as { _opcodeMap: ({ opcodeInfo: { fee: number; code: number } } | undefined)[] })._opcodeMap;
    table = { fees: new Uint32Array(256), codes: new Uint8Array(256) };
    for (let op = 0; op < 256; op++) {
      table.fees[op] = map[op]?.opcodeInfo.fee ?? 0;
      table.codes[op] = map[op]?.opcodeInfo.code ?? op;
    }
    opcodeTables.set(vm, table);
  }
  return table;
}

function precompileSetOf(vm: VM): Set<bigint> {
  let set = precompileSets.get(vm);
  if (set === undefined) precompileSets.set(vm, (set = new Set([...vm.evm.precompiles.keys()].map((a) => BigInt('0x' + a.replace(/^0x/, ''))))));
  return set;
}

/** The record of `tx` run on the interpreter, or the needs to run it with on ethereumjs. */
export type FastTraceResult = { record: ExecutionRecord; outcome: FastCallOutcome } | { record: undefined; fallbackNeeds: RecordNeeds };

/** The job's budget of `needs` (frames and steps share it), if any. */
function budgetOf(needs: RecordNeeds): StepBudget | undefined {
  const frames = needs.frames?.kind === 'refuse' ? needs.frames.budget : undefined;
  const steps = needs.steps?.bounds?.budget;
  return frames ?? steps;
}

/** `needs` charging `replay` wherever they charged `budget`. */
function needsCharging(needs: RecordNeeds, budget: StepBudget, replay: ReplayBudget): RecordNeeds {
  const frames = needs.frames?.kind === 'refuse' && needs.frames.budget === budget ? { ...needs.frames, budget: replay } : needs.frames;
  const bounds = needs.steps?.bounds;
  const steps = needs.steps && bounds?.budget === budget ? { ...needs.steps, bounds: { ...bounds, budget: replay } } : needs.steps;
  return { ...needs, frames, steps };
}

/** The record and the run's outcome (the differential fuzzer compares both), or the needs to run it with on ethereumjs. */
export async function runFastRecorded(options: FastTraceOptions): Promise<FastTraceResult> {
  const { vm, tx, block } = options;
  const reason = unsupportedReason(vm, tx);
  if (reason !== undefined) {
    fastCallStats.handedOver++;
    options.onFallback?.(reason);
    return { record: undefined, fallbackNeeds: options.needs };
  }
  const budget = budgetOf(options.needs);
  const replayBudget = budget && createReplayBudget(budget);
  const needs = budget && replayBudget ? needsCharging(options.needs, budget, replayBudget) : options.needs;
  const handOver = (): FastTraceResult => {
    replayBudget?.restart();
    return { record: undefined, fallbackNeeds: needs };
  };
  const common = vm.common;
  const from = bytesToBig(options.from.bytes);
  const coinbase = bytesToBig(block.header.coinbase.bytes);
  const sm = vm.stateManager;
  const nonce = tx.to === undefined ? ((await (sm instanceof CachedStorageStateManager ? sm.peekAccount(options.from) : sm.getAccount(options.from)))?.nonce ?? 0n) : 0n;
  const precompiles = precompileSetOf(vm);
  const recorder = createFastRecorder({
    needs,
    isPrecompile: (address) => precompiles.has(address),
    pairingGas: { base: common.param('bn254PairingGas'), perPair: common.param('bn254PairingWordGas') },
    from,
    to: tx.to === undefined ? undefined : bytesToBig(tx.to.bytes),
    coinbase,
    created: tx.to === undefined ? bytesToBig(generateAddress(options.from.bytes, bigIntToBytes(nonce))) : undefined,
    replayBudget,
    opcodes: needs.steps ? opcodeTableOf(vm) : undefined,
    delegation: common.isActivatedEIP(7702),
  });
  const outcome = await runFastCall({ vm, tx, from: options.from, sender: options.sender, block, hooks: recorder.hooks, check: options.check, yieldEveryMs: options.yieldEveryMs, onFallback: options.onFallback });
  if (!outcome) return handOver();
  const world = outcome.world;
  try {
    if (needs.state) settleFees(outcome, tx.gasLimit, from, coinbase, block.header.baseFeePerGas ?? 0n);
    const record = recorder.finish({ world, gasUsed: outcome.gasUsed, gasPrice: outcome.gasPrice, gasLimit: tx.gasLimit, intrinsicGas: outcome.intrinsicGas, value: tx.value, hardfork: common.hardfork() });
    return { record, outcome };
  } catch (error) {
    // The post-state read something the run never loaded: let ethereumjs answer.
    if (error instanceof StateMiss) {
      options.onFallback?.('post-state read');
      return handOver();
    }
    throw error;
  }
}
