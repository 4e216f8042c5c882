// debug_traceTransaction: replays the transaction's block up to it and renders the requested geth
// tracer. Rendered results of mined transactions are cached as JSON text until a reorg.
import type { debugSchema } from '../../rpc/schema/debug.js';
import { requestKey, toEngineRequest, traceOptionsOrDefault } from './gethTraceOptions.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function debug_traceTransaction({ tracer }: TraceMethodDeps): MethodHandler<(typeof debugSchema)['debug_traceTransaction']> {
  return async ([hash, options], ctx) => {
    const { request, timeoutMs } = traceOptionsOrDefault(options);
    return tracer.traceMinedTransaction(hash, `debug_traceTransaction:${requestKey(request)}`, { format: 'geth', request: toEngineRequest(request) }, timeoutMs, ctx);
  };
}
