// What the debug_trace* and trace_* handlers depend on: the tracing facade over the chain.
import type { Tracer } from '../../engine/trace/createTracer.js';

export interface TraceMethodDeps {
  tracer: Tracer;
}
