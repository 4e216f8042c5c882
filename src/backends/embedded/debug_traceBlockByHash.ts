// debug_traceBlockByHash: every transaction of a canonical block by hash, with one tracer.
import type { debugSchema } from '../../rpc/schema/debug.js';
import { traceBlockWithGethTracer } from './debugBlockTrace.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function debug_traceBlockByHash({ tracer }: TraceMethodDeps): MethodHandler<(typeof debugSchema)['debug_traceBlockByHash']> {
  return async ([hash, options], ctx) =>
    traceBlockWithGethTracer(tracer, await tracer.requireBlock({ kind: 'hash', hash, requireCanonical: false }), options, ctx);
}
