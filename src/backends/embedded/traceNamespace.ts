// The Parity trace_* namespace over the tracing facade.
import { traceSchema } from '../../rpc/schema/trace.js';
import { type Namespace, defineNamespace } from './methodTable.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';
import { trace_block } from './trace_block.js';
import { trace_call } from './trace_call.js';
import { trace_callMany } from './trace_callMany.js';
import { trace_filter } from './trace_filter.js';
import { trace_get } from './trace_get.js';
import { trace_rawTransaction } from './trace_rawTransaction.js';
import { trace_replayBlockTransactions } from './trace_replayBlockTransactions.js';
import { trace_replayTransaction } from './trace_replayTransaction.js';
import { trace_transaction } from './trace_transaction.js';
import { chainReadGate } from './chainReadGate.js';

/** trace_call, trace_callMany, trace_rawTransaction, trace_replay*, trace_transaction, trace_block, trace_filter, trace_get. */
export function createTraceNamespace(deps: TraceMethodDeps): Namespace<typeof traceSchema> {
  return {
    ...defineNamespace(traceSchema, {
      trace_call: trace_call(deps),
      trace_callMany: trace_callMany(deps),
      trace_rawTransaction: trace_rawTransaction(deps),
      trace_replayTransaction: trace_replayTransaction(deps),
      trace_replayBlockTransactions: trace_replayBlockTransactions(deps),
      trace_transaction: trace_transaction(deps),
      trace_block: trace_block(deps),
      trace_filter: trace_filter(deps),
      trace_get: trace_get(deps),
    }),
    gate: chainReadGate(deps.tracer.chain),
  };
}
