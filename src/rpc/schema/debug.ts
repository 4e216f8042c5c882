// Runtime schemas of the debug_trace* methods. The trace options object decodes into a
// discriminated union on `tracer` (plus the struct logger when no tracer is named); an unknown
// tracer, a malformed `tracerConfig` or a bad `timeout` fails validation, which the RPC layer
// reports as -32602 naming the parameter.
import { z } from 'zod';
import { defineMethod, optionalParam, param } from './defineMethod.js';
import { TransactionRequestObject, StateOverrideSet } from './eth.js';
import { Address, BlockNumberOrHash, BlockNumberOrTag, Hash32, Quantity } from './primitives.js';

const CallTracerConfig = z.object({ onlyTopCall: z.boolean().optional(), withLog: z.boolean().optional() });
const FlatCallTracerConfig = z.object({
  convertParityErrors: z.boolean().optional(),
  includePrecompiles: z.boolean().optional(),
  // Accepted and ignored, as geth does (call_tracer_flat/simple_onlytop.json).
  onlyTopCall: z.boolean().optional(),
});
const PrestateTracerConfig = z
  .object({
    diffMode: z.boolean().optional(),
    disableCode: z.boolean().optional(),
    disableStorage: z.boolean().optional(),
    includeEmpty: z.boolean().optional(),
  })
  .refine((c) => !(c.diffMode && c.includeEmpty), { error: 'cannot use diffMode with includeEmpty' });
const EmptyConfig = z.object({}).transform((): Record<string, never> => ({}));

/** The struct logger's options (top-level keys of the trace options object). */
export interface StructLoggerOptions {
  enableMemory?: boolean;
  disableStack?: boolean;
  disableStorage?: boolean;
  enableReturnData?: boolean;
  limit?: number;
}

/** A validated tracer request (mirrors the engine's GethTracerRequest). */
export type TracerRequest =
  | { tracer: 'callTracer'; config: z.output<typeof CallTracerConfig> }
  | { tracer: 'flatCallTracer'; config: z.output<typeof FlatCallTracerConfig> }
  | { tracer: 'prestateTracer'; config: z.output<typeof PrestateTracerConfig> }
  | { tracer: '4byteTracer'; config: Record<string, never> }
  | { tracer: 'noopTracer'; config: Record<string, never> }
  | { tracer: 'muxTracer'; config: Record<string, TracerRequest> }
  | { tracer: 'structLogger'; config: StructLoggerOptions };

const CONFIG_SCHEMAS = {
  callTracer: CallTracerConfig,
  flatCallTracer: FlatCallTracerConfig,
  prestateTracer: PrestateTracerConfig,
  '4byteTracer': EmptyConfig,
  noopTracer: EmptyConfig,
} as const;

/** Tracer names this service implements (JavaScript tracers are not offered). */
export const TRACER_NAMES = [...Object.keys(CONFIG_SCHEMAS), 'muxTracer'] as const;

function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.length ? ` at ${issue.path.map(String).join('.')}` : '';
}

/** Validates `tracer` + `tracerConfig`; returns the request or an error message. */
export function tracerRequestOf(tracer: string, rawConfig: unknown, depth = 0): TracerRequest | string {
  if (tracer === 'muxTracer') {
    if (depth > 0) return 'muxTracer cannot be nested';
    if (rawConfig === undefined || rawConfig === null) return 'muxTracer needs a tracerConfig naming its tracers';
    if (typeof rawConfig !== 'object' || Array.isArray(rawConfig)) return 'tracerConfig of muxTracer must be an object';
    const config: Record<string, TracerRequest> = {};
    for (const [name, sub] of Object.entries(rawConfig as Record<string, unknown>)) {
      const request = tracerRequestOf(name, sub, depth + 1);
      if (typeof request === 'string') return request;
      config[name] = request;
    }
    return { tracer: 'muxTracer', config };
  }
  if (!(tracer in CONFIG_SCHEMAS)) return `unknown tracer "${tracer}" (supported: ${TRACER_NAMES.join(', ')})`;
  const schema = CONFIG_SCHEMAS[tracer as keyof typeof CONFIG_SCHEMAS];
  const parsed = schema.safeParse(rawConfig ?? {});
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return `bad tracerConfig for ${tracer}: ${first ? `${first.message}${issuePath(first)}` : 'invalid value'}`;
  }
  return { tracer, config: parsed.data } as TracerRequest;
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go duration string ("5s", "300ms", "1m30s") in milliseconds, or undefined if malformed. */
export function parseGoDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(amount) * DURATION_UNITS[unit!]!;
  return total;
}

const Timeout = z.string({ error: 'expected a duration string such as "5s"' }).transform((text, ctx) => {
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `invalid timeout "${text}": expected a duration such as "5s" or "500ms"` });
    return z.NEVER;
  }
  return ms;
});

/** geth's BlockOverrides (both old and new field names). */
export const BlockOverridesObject = z
  .strictObject({
    number: Quantity.optional(),
    difficulty: Quantity.optional(),
    time: Quantity.optional(),
    gasLimit: Quantity.optional(),
    feeRecipient: Address.optional(),
    coinbase: Address.optional(),
    prevRandao: Hash32.optional(),
    random: Hash32.optional(),
    baseFeePerGas: Quantity.optional(),
    baseFee: Quantity.optional(),
  }, { error: 'unsupported block override (supported: number, difficulty, time, gasLimit, feeRecipient, prevRandao, baseFeePerGas)' })
  .transform((o) => ({
    number: o.number,
    difficulty: o.difficulty,
    time: o.time,
    gasLimit: o.gasLimit,
    feeRecipient: o.feeRecipient ?? o.coinbase,
    prevRandao: o.prevRandao ?? o.random,
    baseFeePerGas: o.baseFeePerGas ?? o.baseFee,
  }));

const TraceOptionsFields = {
  tracer: z.string({ error: 'tracer must be a string' }).optional(),
  tracerConfig: z.unknown().optional(),
  timeout: Timeout.optional(),
  reexec: z.number().int().nonnegative().optional(),
  enableMemory: z.boolean().optional(),
  disableStack: z.boolean().optional(),
  disableStorage: z.boolean().optional(),
  enableReturnData: z.boolean().optional(),
  limit: z.number().int().nonnegative().optional(),
  debug: z.boolean().optional(),
};

export interface TraceOptions {
  request: TracerRequest;
  timeoutMs: number | undefined;
}

function toTraceOptions(raw: { tracer?: string; tracerConfig?: unknown; timeout?: number } & StructLoggerOptions, ctx: z.RefinementCtx): TraceOptions {
  if (raw.tracer === undefined || raw.tracer === '') {
    const { enableMemory, disableStack, disableStorage, enableReturnData, limit } = raw;
    return { request: { tracer: 'structLogger', config: { enableMemory, disableStack, disableStorage, enableReturnData, limit } }, timeoutMs: raw.timeout };
  }
  const request = tracerRequestOf(raw.tracer, raw.tracerConfig);
  if (typeof request === 'string') {
    ctx.addIssue({ code: 'custom', message: request });
    return z.NEVER;
  }
  return { request, timeoutMs: raw.timeout };
}

/** debug_traceTransaction / debug_traceBlock* options. */
export const TraceConfigObject = z.object(TraceOptionsFields).transform(toTraceOptions);

/** debug_traceCall options: trace options plus state/block overrides and `txIndex`. */
export const TraceCallConfigObject = z
  .object({
    ...TraceOptionsFields,
    stateOverrides: StateOverrideSet.optional(),
    blockOverrides: BlockOverridesObject.optional(),
    txIndex: z.union([Quantity, z.number().int().nonnegative().transform(BigInt)]).optional(),
  })
  .transform((raw, ctx) => {
    // Written out rather than spread: each key a literal adds after a spread is a runtime call on
    // Node 20 (about 0.5 µs each), and this runs for every debug_traceCall.
    const options = toTraceOptions(raw, ctx);
    return {
      request: options.request,
      timeoutMs: options.timeoutMs,
      stateOverrides: raw.stateOverrides,
      blockOverrides: raw.blockOverrides,
      txIndex: raw.txIndex === undefined ? undefined : Number(raw.txIndex),
    };
  });

export const debugSchema = {
  debug_traceTransaction: defineMethod(param('transactionHash', Hash32), optionalParam('options', TraceConfigObject)),
  debug_traceCall: defineMethod(
    param('call', TransactionRequestObject),
    optionalParam('block', BlockNumberOrHash),
    optionalParam('options', TraceCallConfigObject),
  ),
  debug_traceBlockByNumber: defineMethod(param('block', BlockNumberOrTag), optionalParam('options', TraceConfigObject)),
  debug_traceBlockByHash: defineMethod(param('blockHash', Hash32), optionalParam('options', TraceConfigObject)),
};
