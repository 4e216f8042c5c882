// Shared by the debug_trace* handlers: the default when no options object is given (a callTracer
// frame tree, as the reference hosted service answers; an object without `tracer` gets the struct
// logger, as in geth) and the cache key of a rendered mined-transaction trace.
import type { GethTracerRequest } from '../../engine/render/gethTracers.js';
import type { TraceOptions, TracerRequest } from '../../rpc/schema/debug.js';

const DEFAULT_OPTIONS: TraceOptions = { request: { tracer: 'callTracer', config: {} }, timeoutMs: undefined };

/** The options in force: the caller's, or callTracer when the options object is absent. */
export function traceOptionsOrDefault(options: TraceOptions | undefined): TraceOptions {
  return options ?? DEFAULT_OPTIONS;
}

/** The schema's tracer request is the engine's (same shape, validated). */
export function toEngineRequest(request: TracerRequest): GethTracerRequest {
  return request as GethTracerRequest;
}

/** Stable cache key of a request (key order of the config objects is fixed by the schema). */
export function requestKey(request: TracerRequest): string {
  return JSON.stringify(request);
}

