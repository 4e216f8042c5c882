// Tracers named inside our own fixtures (fixtures/traces): geth tracers by their RPC name plus
// `structLogger` and the Parity trace types as `parity:trace`, `parity:stateDiff`, `parity:vmTrace`.
import type { ExecutionRecord, RecordNeeds } from '../../src/engine/record/types.js';
import { needsOfGethTracer, renderGethTracer, type GethTracerRequest } from '../../src/engine/render/gethTracers.js';
import { needsOfParityTraceTypes, renderParityTraceResults, type ParityTraceType } from '../../src/engine/render/parityTraceResults.js';
import { NO_CONTEXT, type Json } from '../../src/engine/render/types.js';
import { tracerRequestOf } from '../../src/rpc/schema/debug.js';

export type NamedTracer =
  | 'callTracer'
  | 'flatCallTracer'
  | 'prestateTracer'
  | '4byteTracer'
  | 'noopTracer'
  | 'structLogger'
  | 'parity:trace'
  | 'parity:stateDiff'
  | 'parity:vmTrace';

function gethRequest(name: string, config: Record<string, unknown>): GethTracerRequest {
  if (name === 'structLogger') return { tracer: 'structLogger', config };
  const request = tracerRequestOf(name, config);
  if (typeof request === 'string') throw new Error(request);
  return request as GethTracerRequest;
}

function parityType(name: string): ParityTraceType | undefined {
  return name.startsWith('parity:') ? (name.slice('parity:'.length) as ParityTraceType) : undefined;
}

/** What the named tracer needs recorded. */
export function needsOfNamedTracer(name: string, config: Record<string, unknown>): RecordNeeds {
  const parity = parityType(name);
  return parity ? needsOfParityTraceTypes([parity]) : needsOfGethTracer(gethRequest(name, config));
}

/** Renders the named tracer (Parity types render their own part of the trace results). */
export function renderNamedTracer(record: ExecutionRecord, name: string, config: Record<string, unknown>): Json {
  const parity = parityType(name);
  if (!parity) return renderGethTracer(record, gethRequest(name, config), NO_CONTEXT);
  return renderParityTraceResults(record, [parity])[parity]!;
}
