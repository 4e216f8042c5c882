// trace_call: runs a call on a block's state and returns the requested Parity trace types.
import type { traceSchema } from '../../rpc/schema/trace.js';
import { transactionRequestFromRpc } from './rpcRequest.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_call({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_call']> {
  return async ([call, types, blockId, stateOverrides], ctx) => {
    const block = await tracer.requireBlock(blockId);
    const [result] = await tracer.traceCalls(
      { block, stateOverrides: stateOverrides && stateOverrides.size > 0 ? stateOverrides : undefined },
      [{ call: transactionRequestFromRpc(call), render: { format: 'parityResults', types } }],
      undefined,
      ctx,
    );
    return result!;
  };
}
