// The geth tracer catalogue: a tracer request (name + config, as validated by the RPC schema) →
// what must be recorded, and the pure rendering of a record. Used by debug_trace* and by the
// conformance runner alike.
import type { ExecutionRecord, RecordNeeds, StepBudget, StepNeeds } from '../record/types.js';
import { renderCallTracer, type CallTracerConfig } from './callTracer.js';
import { renderFlatCallTracer, type FlatCallTracerConfig } from './flatCallTracer.js';
import { renderFourByteTracer } from './fourByteTracer.js';
import { STRUCT_LOG_ADVICE, structLoggerWeigher } from './outputWeights.js';
import { renderNoopTracer } from './noopTracer.js';
import { renderPrestateTracer, type PrestateTracerConfig } from './prestateTracer.js';
import { renderStructLogger, type StructLoggerConfig } from './structLogger.js';
import type { Json, RenderContext } from './types.js';

/** A fully validated geth tracer request. */
export type GethTracerRequest =
  | { tracer: 'callTracer'; config: CallTracerConfig }
  | { tracer: 'flatCallTracer'; config: FlatCallTracerConfig }
  | { tracer: 'prestateTracer'; config: PrestateTracerConfig }
  | { tracer: '4byteTracer'; config: Record<string, never> }
  | { tracer: 'noopTracer'; config: Record<string, never> }
  | { tracer: 'muxTracer'; config: Record<string, GethTracerRequest> }
  | { tracer: 'structLogger'; config: StructLoggerConfig };

function mergeSteps(a: StepNeeds | undefined, b: StepNeeds | undefined): StepNeeds | undefined {
  if (!a) return b;
  if (!b) return a;
  return {
    stack: a.stack || b.stack,
    memory: a.memory || b.memory,
    returnData: a.returnData || b.returnData,
    storage: a.storage || b.storage,
    effects: a.effects || b.effects,
    limit: a.limit === 0 || b.limit === 0 ? 0 : Math.max(a.limit, b.limit),
    bounds: a.bounds ?? b.bounds,
  };
}

/** The union of two sets of needs. */
export function mergeNeeds(a: RecordNeeds, b: RecordNeeds): RecordNeeds {
  return { state: a.state || b.state, steps: mergeSteps(a.steps, b.steps) };
}

/**
 * What a tracer needs recorded: frames always; state for prestate; steps for the struct logger,
 * charged to `budget` (the job's server-side caps) when one is given.
 */
export function needsOfGethTracer(request: GethTracerRequest, budget?: StepBudget): RecordNeeds {
  switch (request.tracer) {
    case 'prestateTracer':
      return { state: true, steps: undefined };
    case 'structLogger':
      return {
        state: false,
        steps: {
          stack: !request.config.disableStack,
          memory: request.config.enableMemory === true,
          returnData: request.config.enableReturnData === true,
          storage: !request.config.disableStorage,
          effects: false,
          limit: request.config.limit ?? 0,
          bounds: budget && { budget, weigher: () => structLoggerWeigher(request.config), advice: STRUCT_LOG_ADVICE },
        },
      };
    case 'muxTracer':
      return Object.values(request.config).reduce<RecordNeeds>((acc, sub) => mergeNeeds(acc, needsOfGethTracer(sub, budget)), {
        state: false,
        steps: undefined,
      });
    default:
      return { state: false, steps: undefined };
  }
}

/** Renders one tracer's result from a record that was made with at least its needs. */
export function renderGethTracer(record: ExecutionRecord, request: GethTracerRequest, ctx: RenderContext): Json {
  switch (request.tracer) {
    case 'callTracer':
      return renderCallTracer(record, request.config, ctx);
    case 'flatCallTracer':
      return renderFlatCallTracer(record, request.config, ctx);
    case 'prestateTracer':
      return renderPrestateTracer(record, request.config);
    case '4byteTracer':
      return renderFourByteTracer(record);
    case 'noopTracer':
      return renderNoopTracer(record);
    case 'structLogger':
      return renderStructLogger(record, request.config);
    case 'muxTracer': {
      const out: { [name: string]: Json } = {};
      for (const [name, sub] of Object.entries(request.config)) out[name] = renderGethTracer(record, sub, ctx);
      return out;
    }
  }
}
