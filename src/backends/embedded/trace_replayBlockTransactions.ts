// trace_replayBlockTransactions: replays every transaction of a block with the requested Parity
// trace types; each result carries its `transactionHash`.
import type { traceSchema } from '../../rpc/schema/trace.js';
import type { MethodHandler } from './methodTable.js';
import { blockReplayResults } from './parityTraces.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_replayBlockTransactions({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_replayBlockTransactions']> {
  return async ([blockId, types], ctx) => blockReplayResults(tracer, await tracer.requireBlock(blockId), types, ctx);
}
