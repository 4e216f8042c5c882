// trace_block: the Parity trace entries of every transaction in a block (a post-merge dev chain
// has no block reward entries).
import type { traceSchema } from '../../rpc/schema/trace.js';
import type { MethodHandler } from './methodTable.js';
import { blockTraceEntries } from './parityTraces.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_block({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_block']> {
  return async ([blockId], ctx) => blockTraceEntries(tracer, await tracer.requireBlock(blockId), ctx);
}
