// The debug_trace* namespace over the tracing facade.
import { debugSchema } from '../../rpc/schema/debug.js';
import { debug_traceBlockByHash } from './debug_traceBlockByHash.js';
import { debug_traceBlockByNumber } from './debug_traceBlockByNumber.js';
import { debug_traceCall } from './debug_traceCall.js';
import { debug_traceTransaction } from './debug_traceTransaction.js';
import { type Namespace, defineNamespace } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';
import { chainReadGate } from './chainReadGate.js';

/** debug_traceTransaction, debug_traceCall, debug_traceBlockByNumber, debug_traceBlockByHash. */
export function createDebugNamespace(deps: TraceMethodDeps): Namespace<typeof debugSchema> {
  return {
    ...defineNamespace(debugSchema, {
      debug_traceTransaction: debug_traceTransaction(deps),
      debug_traceCall: debug_traceCall(deps),
      debug_traceBlockByNumber: debug_traceBlockByNumber(deps),
      debug_traceBlockByHash: debug_traceBlockByHash(deps),
    }),
    gate: chainReadGate(deps.tracer.chain),
  };
}
