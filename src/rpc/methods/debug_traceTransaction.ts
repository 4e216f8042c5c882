// debug_traceTransaction: replays the transaction's block up to it and renders the requested geth
// tracer. Results of mined transactions are cached until a reorg.
import { needsOfGethTracer, renderGethTracer } from '../../engine/render/gethTracers.js';
import type { debugSchema } from '../schema/debug.js';
import { requestKey, toEngineRequest, traceOptionsOrDefault } from './gethTraceOptions.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function debug_traceTransaction({ tracer }: TraceMethodDeps): MethodHandler<(typeof debugSchema)['debug_traceTransaction']> {
  return async ([hash, options]) => {
    const { request, timeoutMs } = traceOptionsOrDefault(options);
    const mined = await tracer.requireTransaction(hash);
    return tracer.cached(`debug_traceTransaction:${hash}:${requestKey(request)}`, async () => {
      const engineRequest = toEngineRequest(request);
      const record = await tracer.recordTransaction(mined, needsOfGethTracer(engineRequest), timeoutMs);
      return renderGethTracer(record, engineRequest, mined.context);
    });
  };
}
