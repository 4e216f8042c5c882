// trace_replayTransaction: replays a mined transaction and returns the requested Parity trace types.
import type { traceSchema } from '../../rpc/schema/trace.js';
import type { MethodHandler } from './methodTable.js';
import { transactionReplayResult } from './parityTraces.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_replayTransaction({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_replayTransaction']> {
  return async ([hash, types], ctx) => transactionReplayResult(tracer, hash, types, ctx);
}
