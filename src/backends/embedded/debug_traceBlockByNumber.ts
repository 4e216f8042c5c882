// debug_traceBlockByNumber: every transaction of a block by number or tag, with one tracer.
import type { debugSchema } from '../../rpc/schema/debug.js';
import { traceBlockWithGethTracer } from './debugBlockTrace.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function debug_traceBlockByNumber({ tracer }: TraceMethodDeps): MethodHandler<(typeof debugSchema)['debug_traceBlockByNumber']> {
  return async ([blockId, options], ctx) => traceBlockWithGethTracer(tracer, await tracer.requireBlock(blockId), options, ctx);
}
