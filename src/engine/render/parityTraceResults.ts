// The Parity `trace_call`/`trace_replay*` result object: `output` plus each requested trace type,
// unrequested ones as `trace: []`, `stateDiff: null`, `vmTrace: null` (OpenEthereum TraceResults).
import { bytesToHex } from '../../rpc/hex.js';
import type { ExecutionRecord, RecordNeeds } from '../record/types.js';
import { renderParityStateDiff } from './parityStateDiff.js';
import { renderParityTrace, type ParityStyle } from './parityTrace.js';
import { renderParityVmTrace } from './parityVmTrace.js';
import type { Json, RenderContext } from './types.js';

export type ParityTraceType = 'trace' | 'stateDiff' | 'vmTrace';

/** What the requested trace types need recorded. */
export function needsOfParityTraceTypes(types: readonly ParityTraceType[]): RecordNeeds {
  const vmTrace = types.includes('vmTrace');
  return {
    state: types.includes('stateDiff'),
    steps: vmTrace ? { stack: true, memory: true, returnData: false, storage: false, effects: true, limit: 0 } : undefined,
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
