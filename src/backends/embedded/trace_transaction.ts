// trace_transaction: the Parity trace entries of a mined transaction, parent first, with block and
// transaction locators.
import type { traceSchema } from '../../rpc/schema/trace.js';
import type { MethodHandler } from './methodTable.js';
import { transactionTraceEntries } from './parityTraces.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_transaction({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_transaction']> {
  return async ([hash], ctx) => transactionTraceEntries(tracer, hash, ctx);
}
