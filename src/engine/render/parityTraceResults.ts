// The Parity `trace_call`/`trace_replay*` result object: `output` plus each requested trace type,
// unrequested ones as `trace: []`, `stateDiff: null`, `vmTrace: null` (OpenEthereum TraceResults).
import { bytesToHex } from '../../rpc/hex.js';
import type { ExecutionRecord, RecordNeeds, StepBudget } from '../record/types.js';
import { VM_TRACE_ADVICE, vmTraceWeigher } from './outputWeights.js';
import { renderParityStateDiff } from './parityStateDiff.js';
import { renderParityTrace, type ParityStyle } from './parityTrace.js';
import { renderParityVmTrace } from './parityVmTrace.js';
import type { Json, RenderContext } from './types.js';

export type ParityTraceType = 'trace' | 'stateDiff' | 'vmTrace';

/**
 * What the requested trace types need recorded; vmTrace's steps are charged to `budget` (the
 * job's server-side caps) when one is given. vmTrace renders only what each opcode left behind,
 * which the recorder reads from the next step: it keeps no stack or memory copy per step.
 */
export function needsOfParityTraceTypes(types: readonly ParityTraceType[], budget?: StepBudget): RecordNeeds {
  const vmTrace = types.includes('vmTrace');
  const bounds = budget && { budget, weigher: vmTraceWeigher, advice: VM_TRACE_ADVICE };
  return {
    state: types.includes('stateDiff'),
    steps: vmTrace ? { stack: false, memory: false, returnData: false, storage: false, effects: true, limit: 0, bounds } : undefined,
  };
}

/** Renders `{output, stateDiff, trace, vmTrace}` for one transaction or call. */
export function renderParityTraceResults(
  record: ExecutionRecord,
  types: readonly ParityTraceType[],
  options: { style?: ParityStyle } = {},
): { [key: string]: Json } {
  // Entries of trace_call/trace_replay* carry no block locators.
  const ctx: RenderContext = { logIndexOffset: 0 };
  const error = record.tx.error;
  return {
    output: bytesToHex(!error || error.kind === 'revert' ? record.tx.output : new Uint8Array(0)),
    stateDiff: types.includes('stateDiff') ? renderParityStateDiff(record) : null,
    trace: types.includes('trace') ? renderParityTrace(record, options, ctx) : [],
    vmTrace: types.includes('vmTrace') ? renderParityVmTrace(record) : null,
  };
}
