// trace_rawTransaction: runs a signed raw transaction on the latest state, as the next
// transaction would run, without sending it, and returns the requested Parity trace types.
import { createTxFromRLP } from '@ethereumjs/tx';
import { InvalidParamsError } from '../../rpc/errors.js';
import type { traceSchema } from '../../rpc/schema/trace.js';
import type { MethodHandler } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_rawTransaction({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_rawTransaction']> {
  return async ([raw, types], ctx) => {
    let tx;
    try {
      tx = createTxFromRLP(raw, { common: tracer.chain.common });
    } catch (error) {
      throw new InvalidParamsError('trace_rawTransaction: invalid argument 0 (data): not a signed transaction', {
        details: error instanceof Error ? error.message : undefined,
      });
    }
    if (!tx.isSigned()) throw new InvalidParamsError('trace_rawTransaction: invalid argument 0 (data): transaction is not signed');
    const block = await tracer.requireBlock(undefined);
    return tracer.traceRawTransaction(block, tx, { format: 'parityResults', types }, undefined, ctx);
  };
}
