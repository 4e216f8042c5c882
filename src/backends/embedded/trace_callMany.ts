// trace_callMany: runs calls one after another on a block's state, each seeing the previous
// ones' changes, and returns one Parity result per call.
import { RawJson } from '../../rpc/rawJson.js';
import type { traceSchema } from '../../rpc/schema/trace.js';
import { transactionRequestFromRpc } from './rpcRequest.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_callMany({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_callMany']> {
  return async ([calls, blockId], ctx) => {
    const block = await tracer.requireBlock(blockId);
    const results = await tracer.traceCalls(
      { block },
      calls.map(([call, types]) => ({ call: transactionRequestFromRpc(call), render: { format: 'parityResults', types } })),
      undefined,
      ctx,
    );
    return new RawJson(`[${results.map((r) => r.text).join(',')}]`);
  };
}
