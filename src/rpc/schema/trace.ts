// Runtime schemas of the Parity trace_* methods (OpenEthereum/Erigon/reth parameter shapes).
// Trace types must be a non-empty list of `trace`, `stateDiff`, `vmTrace`; the block parameter is
// a number or tag, and a block hash is refused with a message saying so.
import { z } from 'zod';
import { defineMethod, optionalParam, param } from './defineMethod.js';
import { StateOverrideSet, TransactionRequestObject } from './eth.js';
import { Address, BlockNumberOrTag, BlockTag, Data, HASH32_PATTERN, Hash32, Quantity } from './primitives.js';

export const TraceTypeName = z.enum(['trace', 'stateDiff', 'vmTrace'], {
  error: 'unknown trace type (expected "trace", "stateDiff" or "vmTrace")',
});

/** A non-empty list of trace types (duplicates collapse). */
export const TraceTypes = z
  .array(TraceTypeName, { error: 'expected an array of trace types' })
  .min(1, { error: 'at least one trace type is required ("trace", "stateDiff" or "vmTrace")' })
  .transform((types) => [...new Set(types)]);

/** Block number or tag; a 32-byte hash (also a valid hex number) gets a specific refusal. */
export const ParityBlockParam = z
  .unknown()
  // Hash32's own test, without a failed parse per call (a failed safeParse builds a ZodError).
  .refine((value) => !(typeof value === 'string' && HASH32_PATTERN.test(value)), {
    error: 'a block hash is not accepted here; pass a block number or a tag such as "latest"',
    abort: true,
  })
  .pipe(BlockNumberOrTag);

/** trace_filter's filter object. Block bounds are numbers or tags; addresses are lists. */
export const TraceFilterObject = z.strictObject(
  {
    fromBlock: BlockTag.optional(),
    toBlock: BlockTag.optional(),
    fromAddress: z.array(Address).optional(),
    toAddress: z.array(Address).optional(),
    after: z.union([Quantity, z.number().int().nonnegative().transform(BigInt)]).optional(),
    count: z.union([Quantity, z.number().int().nonnegative().transform(BigInt)]).optional(),
  },
  { error: 'unknown trace_filter field (supported: fromBlock, toBlock, fromAddress, toAddress, after, count)' },
);
export type TraceFilterObject = z.output<typeof TraceFilterObject>;

const CallWithTypes = z.tuple([TransactionRequestObject, TraceTypes], { error: 'expected [call, traceTypes]' });

export const traceSchema = {
  trace_call: defineMethod(
    param('call', TransactionRequestObject),
    param('traceTypes', TraceTypes),
    optionalParam('block', ParityBlockParam),
    optionalParam('stateOverrides', StateOverrideSet),
  ),
  trace_callMany: defineMethod(param('calls', z.array(CallWithTypes).min(1, { error: 'at least one call is required' })), optionalParam('block', ParityBlockParam)),
  trace_rawTransaction: defineMethod(param('data', Data), param('traceTypes', TraceTypes)),
  trace_replayTransaction: defineMethod(param('transactionHash', Hash32), param('traceTypes', TraceTypes)),
  trace_replayBlockTransactions: defineMethod(param('block', ParityBlockParam), param('traceTypes', TraceTypes)),
  trace_transaction: defineMethod(param('transactionHash', Hash32)),
  trace_block: defineMethod(param('block', ParityBlockParam)),
  trace_filter: defineMethod(param('filter', TraceFilterObject)),
  trace_get: defineMethod(param('transactionHash', Hash32), param('indices', z.array(Quantity))),
};
