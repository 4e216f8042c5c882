// debug_traceCall: runs a call on a block's state (optionally after its first `txIndex`
// transactions, with state and block overrides) and renders the requested geth tracer. Without an
// options object the result is a callTracer frame tree.
import { hexToBytes } from '../../rpc/hex.js';
import type { debugSchema } from '../../rpc/schema/debug.js';
import { toEngineRequest, traceOptionsOrDefault } from './gethTraceOptions.js';
import { transactionRequestFromRpc } from './rpcRequest.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function debug_traceCall({ tracer }: TraceMethodDeps): MethodHandler<(typeof debugSchema)['debug_traceCall']> {
  return async ([call, blockId, options], ctx) => {
    const { request, timeoutMs } = traceOptionsOrDefault(options);
    const block = await tracer.requireBlock(blockId);
    const overrides = options?.blockOverrides;
    const [result] = await tracer.traceCalls(
      {
        block,
        txIndex: options?.txIndex,
        stateOverrides: options?.stateOverrides && options.stateOverrides.size > 0 ? options.stateOverrides : undefined,
        blockOverrides: overrides && {
          ...overrides,
          feeRecipient: overrides.feeRecipient ? hexToBytes(overrides.feeRecipient) : undefined,
          prevRandao: overrides.prevRandao ? hexToBytes(overrides.prevRandao) : undefined,
        },
      },
      [{ call: transactionRequestFromRpc(call), render: { format: 'geth', request: toEngineRequest(request) } }],
      timeoutMs,
      ctx,
    );
    return result!;
  };
}
