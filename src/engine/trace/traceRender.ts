// What a trace request wants rendered, as plain data that can cross to a worker thread: a geth
// tracer, Parity trace entries or Parity replay results. Maps it to the recorder's needs and to the
// renderers; the renderers themselves stay in engine/render.
import { type GethTracerRequest, needsOfGethTracer, renderGethTracer } from '../render/gethTracers.js';
import { renderParityTrace } from '../render/parityTrace.js';
import { needsOfParityTraceTypes, renderParityTraceResults, type ParityTraceType } from '../render/parityTraceResults.js';
import { FRAME_DATA_ADVICE } from '../render/outputWeights.js';
import type { Json, RenderContext } from '../render/types.js';
import type { ExecutionRecord, RecordNeeds, StepBudget } from '../record/types.js';
import { bytesToHex } from '../../rpc/hex.js';
import type { BlockTrace } from './createTracer.js';

/** The output format of a trace request. */
export type TraceRender =
  | { format: 'geth'; request: GethTracerRequest }
  /** trace_transaction / trace_block entries with block locators. */
  | { format: 'parityTrace' }
  /** `{output, stateDiff, trace, vmTrace}` of trace_call / trace_replay*. */
  | { format: 'parityResults'; types: ParityTraceType[] };

/** What the recorder must collect for `render` (its frames and steps charged to `budget` when given). */
export function needsOfRender(render: TraceRender, budget?: StepBudget): RecordNeeds {
  const needs: RecordNeeds =
    render.format === 'geth'
      ? needsOfGethTracer(render.request, budget)
      : render.format === 'parityTrace'
        ? { state: false, steps: undefined }
        : needsOfParityTraceTypes(render.types, budget);
  // Not `{ ...needs, frames }`: a key added after a spread is a runtime call on Node 20 (about 0.5 µs).
  return budget ? { state: needs.state, steps: needs.steps, frames: { kind: 'refuse', budget, advice: FRAME_DATA_ADVICE } } : needs;
}

/** One transaction's or call's rendered result. */
export function renderRecord(record: ExecutionRecord, render: TraceRender, ctx: RenderContext): Json {
  if (render.format === 'geth') return renderGethTracer(record, render.request, ctx);
  if (render.format === 'parityTrace') return renderParityTrace(record, {}, ctx) as Json;
  return renderParityTraceResults(record, render.types);
}

/**
 * A block's rendered result: geth's `[{txHash, result}]`, the flat list of Parity entries, or one
 * replay result per transaction with its `transactionHash`.
 */
export function renderBlockTraces(traces: readonly BlockTrace[], render: TraceRender): Json {
  if (render.format === 'geth') return traces.map(({ tx, record, context }) => ({ txHash: bytesToHex(tx.hash()), result: renderRecord(record, render, context) }));
  if (render.format === 'parityTrace') return traces.flatMap(({ record, context }) => renderParityTrace(record, {}, context)) as Json;
  return traces.map(({ tx, record }) => ({ ...renderParityTraceResults(record, render.types), transactionHash: bytesToHex(tx.hash()) }));
}
