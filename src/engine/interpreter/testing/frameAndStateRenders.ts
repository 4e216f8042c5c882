// The renderers the engine-equality tests hold both engines to (traced calls and replays of mined
// transactions), each with a name for the failure report.
import type { TraceRender } from '../../trace/traceRender.js';

export const FRAME_AND_STATE_RENDERS: [string, TraceRender][] = [
  ['callTracer withLog', { format: 'geth', request: { tracer: 'callTracer', config: { withLog: true } } }],
  ['flatCallTracer', { format: 'geth', request: { tracer: 'flatCallTracer', config: {} } }],
  ['prestateTracer', { format: 'geth', request: { tracer: 'prestateTracer', config: {} } }],
  ['prestateTracer diffMode', { format: 'geth', request: { tracer: 'prestateTracer', config: { diffMode: true } } }],
  ['Parity trace+stateDiff', { format: 'parityResults', types: ['trace', 'stateDiff'] }],
];

/** The step renderers: the struct logger in each of its configurations, and vmTrace. */
export const STEP_RENDERS: [string, TraceRender][] = [
  ['struct logger', { format: 'geth', request: { tracer: 'structLogger', config: {} } }],
  ['struct logger enableMemory enableReturnData', { format: 'geth', request: { tracer: 'structLogger', config: { enableMemory: true, enableReturnData: true } } }],
  ['struct logger disableStack disableStorage', { format: 'geth', request: { tracer: 'structLogger', config: { disableStack: true, disableStorage: true } } }],
  ['struct logger limit 7', { format: 'geth', request: { tracer: 'structLogger', config: { limit: 7, enableMemory: true } } }],
  ['vmTrace', { format: 'parityResults', types: ['vmTrace'] }],
  ['Parity trace+vmTrace+stateDiff', { format: 'parityResults', types: ['trace', 'vmTrace', 'stateDiff'] }],
];
