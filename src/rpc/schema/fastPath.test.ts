// The schemas' fast paths against the schemas themselves: whatever a fast path answers, the schema
// answers the same (key for key, bytes for bytes); whatever the schema refuses, the fast path
// leaves to it. And the fast paths do answer the usual shapes, and parseParams uses them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineMethod, param, parseParams } from './defineMethod.js';
import { debugSchema } from './debug.js';
import { TransactionRequestObject } from './eth.js';
import { fastPathOf, withFastPath } from './fastPath.js';
import { BlockNumberOrHash, BlockNumberOrTag } from './primitives.js';

const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF');
const hexText = (min: number, max: number) => fc.array(hexDigit, { minLength: min, maxLength: max }).map((d) => d.join(''));
const prefix = fc.constantFrom('0x', '0x', '0x', '0X', '', 'x0');

/** Strings near each field's format: right and wrong lengths, prefixes, leading zeros, stray characters. */
const nearHex = fc.oneof(
  fc.tuple(prefix, hexText(40, 40)).map(([p, d]) => p + d),
  fc.tuple(prefix, hexText(0, 70)).map(([p, d]) => p + d),
  fc.tuple(prefix, fc.constantFrom('0', '00', '01', '0a', '000')).map(([p, d]) => p + d),
  fc.tuple(hexText(1, 8), fc.constantFrom('g', ' ', '\n', 'é', '-'), hexText(0, 8)).map(([a, c, b]) => `0x${a}${c}${b}`),
  fc.constantFrom('0x', '', '0x0', '0x1', 'latest'),
);
const anyValue = fc.oneof(
  { weight: 6, arbitrary: nearHex },
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.constant([]), fc.constant({}), fc.string()) },
);
const requestKey = fc.constantFrom(
  'from',
  'to',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'data',
  'input',
  'nonce',
  'type',
  'chainId',
  'accessList',
  'authorizationList',
  'unknown',
  '__proto__',
);
/** Request objects as JSON.parse makes them (so `__proto__` is an own key). */
const requestObject = fc.dictionary(requestKey, anyValue, { maxKeys: 6 }).map((o) => JSON.parse(JSON.stringify(o)) as unknown);

/** Asserts that `schema`'s fast path agrees with it on `value`; returns whether the fast path answered. */
function agrees(schema: z.ZodType, value: unknown): boolean {
  const fast = fastPathOf(schema)!(value);
  const parsed = schema.safeParse(value);
  if (fast === undefined) return false;
  expect(parsed.success, JSON.stringify(value)).toBe(true);
  expect(fast, JSON.stringify(value)).toStrictEqual(parsed.data);
  return true;
}

const usualCall = {
  from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  to: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  gas: '0x186a0',
  value: '0x0',
  data: '0xa9059cbb0000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000000a',
};

describe('schema fast paths', () => {
  it('a transaction request: every answer of the fast path is the schema’s, on objects near the format', () => {
    let answered = 0;
    fc.assert(
      fc.property(requestObject, (value) => {
        if (agrees(TransactionRequestObject, value)) answered++;
      }),
      { numRuns: 3000 },
    );
    // The generator makes valid objects often enough that the comparison is not empty.
    expect(answered).toBeGreaterThan(100);
  });

  it('a transaction request: the usual shapes take the fast path; lists, unknown keys and conflicts go to the schema', () => {
    expect(agrees(TransactionRequestObject, usualCall)).toBe(true);
    expect(agrees(TransactionRequestObject, { ...usualCall, to: null, input: usualCall.data })).toBe(true);
    expect(agrees(TransactionRequestObject, {})).toBe(true);
    expect(agrees(TransactionRequestObject, { ...usualCall, accessList: [] })).toBe(false);
    expect(agrees(TransactionRequestObject, { ...usualCall, chainid: '0x1' })).toBe(false);
    const conflict = { ...usualCall, input: '0x00' };
    expect(fastPathOf(TransactionRequestObject)!(conflict)).toBeUndefined();
    expect(TransactionRequestObject.safeParse(conflict).success).toBe(false);
  });

  it('block parameters: tag names take the fast path, every other form the schema', () => {
    for (const schema of [BlockNumberOrHash, BlockNumberOrTag]) {
      for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized']) expect(agrees(schema, tag)).toBe(true);
      fc.assert(fc.property(fc.oneof(nearHex, fc.string(), fc.integer()), (value) => void agrees(schema, value)), { numRuns: 500 });
      for (const other of ['0x5', 'Latest', 'latest ', { blockNumber: 'latest' }]) expect(agrees(schema, other)).toBe(false);
    }
  });

  it('parseParams answers from a schema’s fast path when it has one, and from the schema when it declines', () => {
    const Marked = withFastPath(z.string(), (value) => (value === 'fast' ? 'from the fast path' : undefined));
    const spec = defineMethod(param('x', Marked));
    expect(parseParams('m', spec, ['fast'])).toEqual(['from the fast path']);
    expect(parseParams('m', spec, ['slow'])).toEqual(['slow']);
    expect(() => parseParams('m', spec, [1])).toThrow('m: invalid argument 0 (x)');
    // debug_traceCall's usual parameters come out as before.
    const [call, block] = parseParams('debug_traceCall', debugSchema.debug_traceCall, [usualCall, 'latest', { tracer: 'callTracer' }]);
    expect(call).toStrictEqual(TransactionRequestObject.parse(usualCall));
    expect(block).toEqual({ kind: 'tag', tag: 'latest' });
  });
});
