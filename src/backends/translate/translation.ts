// The shape of a translation and of what it needs from an upstream, shared by the table in
// index.ts and every translation: a router holding an upstream's probed capabilities (methods,
// geth tracers, Parity trace types) picks a translation whose needs they all meet.
import type { Upstream } from './upstreamFacts.js';

export type { Upstream } from './upstreamFacts.js';

/**
 * One capability a translation calls on. `method` alone: the node answers it (plain `eth_*`
 * methods are assumed). With `tracer`: that geth tracer on that debug_trace* method (`js`: a
 * JavaScript tracer, used when present, never required). With `traceTypes`: a Parity method
 * answering those trace types.
 */
export interface UpstreamNeed {
  method: string;
  tracer?: 'callTracer' | 'prestateTracer' | 'flatCallTracer' | 'js';
  tracerConfig?: { diffMode?: true; withLog?: true };
  traceTypes?: readonly ('trace' | 'stateDiff')[];
}

export interface Translation {
  /** The wire method it answers. */
  method: string;
  /** The upstream family it reads: `geth` (debug_* tracers) or `parity` (trace_*). */
  from: 'geth' | 'parity';
  /** Everything `run` calls: an upstream meeting all of them can serve it. */
  requires: readonly UpstreamNeed[];
  /** Capabilities used when the upstream has them, to fill gaps (else the answer may be a TranslationGapError). */
  optional: readonly UpstreamNeed[];
  /**
   * Whether this translation can serve these parameters at all (e.g. the tracer asked for); a
   * router asks before choosing it. Parameters are the wire's, as the caller sent them.
   */
  accepts(params: readonly unknown[]): boolean;
  /**
   * The answer, rendered by src/engine/render as the embedded engine renders it. Rejects with
   * TranslationGapError when the upstream's output lacks what the answer needs, with
   * UpstreamTraceMalformedError when it is malformed, and with the upstream's own errors.
   */
  run(params: readonly unknown[], upstream: Upstream): Promise<unknown>;
}
