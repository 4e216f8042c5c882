// The frame and state renderers the engine-equality tests hold both engines to (traced calls and
// replays of mined transactions), each with a name for the failure report.
import type { TraceRender } from '../../trace/traceRender.js';

export const FRAME_AND_STATE_RENDERS: [string, TraceRender][] = [
  ['callTracer withLog', { format: 'geth', request: { tracer: 'callTracer', config: { withLog: true } } }],
  ['flatCallTracer', { format: 'geth', request: { tracer: 'flatCallTracer', config: {} } }],
  ['prestateTracer', { format: 'geth', request: { tracer: 'prestateTracer', config: {} } }],
  ['prestateTracer diffMode', { format: 'geth', request: { tracer: 'prestateTracer', config: { diffMode: true } } }],
  ['Parity trace+stateDiff', { format: 'parityResults', types: ['trace', 'stateDiff'] }],
];

/** A step renderer (Parity vmTrace). */
export const STEP_RENDER: TraceRender = { format: 'parityResults', types: ['vmTrace'] };
