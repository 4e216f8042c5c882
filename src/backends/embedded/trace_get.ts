// trace_get: one entry of a transaction's trace, addressed by its trace address (OpenEthereum:
// `[]` is the top call, `[0]` its first sub-call, ...); null when there is none.
import type { ParityTraceEntry } from '../../engine/render/parityTrace.js';
import { rawJsonToValue } from '../../rpc/rawJson.js';
import type { traceSchema } from '../../rpc/schema/trace.js';
import type { MethodHandler } from './methodTable.js';
import { transactionTraceEntries } from './parityTraces.js';
import type { TraceMethodDeps } from './traceMethodDeps.js';

export function trace_get({ tracer }: TraceMethodDeps): MethodHandler<(typeof traceSchema)['trace_get']> {
  return async ([hash, indices], ctx) => {
    const entries = rawJsonToValue<ParityTraceEntry[]>(await transactionTraceEntries(tracer, hash, ctx));
    const address = indices.map(Number);
    const entry = entries.find((e) => {
      const ta = e.traceAddress as number[];
      return ta.length === address.length && ta.every((v, i) => v === address[i]);
    });
    return entry ?? null;
  };
}
