// Test support for the trace fuzzer: fast-check arbitraries of programs (fuzzProgram.ts). Contract
// Ci only calls Cj with j > i (or itself with bounded gas), so call depth stays small; everything
// else (values, gas, memory ranges, targets, how code ends) is drawn at random.
import fc from 'fast-check';
import type { CallKind, Code, End, Init, Op, Program, Target, Tx } from './fuzzProgram.js';

export const CONTRACT_COUNT = 3;

const slot = fc.integer({ min: 0, max: 3 });
const word = fc.oneof(fc.constant(0n), fc.constant(1n), fc.bigInt({ min: 2n, max: 2n ** 256n - 1n }));
const offset = fc.constantFrom(0, 1, 32, 64, 0x80);
const size = fc.constantFrom(0, 1, 4, 32, 33, 64);
/** 2**200 is more than any account holds: the transfer fails its balance check. */
const value = fc.constantFrom(0n, 0n, 1n, 10n ** 15n, 2n ** 200n);
const fresh: fc.Arbitrary<Target> = fc.integer({ min: 0, max: 3 }).map((n) => ({ to: 'fresh', n }));
/** Precompiles 0x01–0x11 (0x0a, point evaluation, runs with the bundled KZG). */
const precompile: fc.Arbitrary<Target> = fc.integer({ min: 1, max: 0x11 }).map((n) => ({ to: 'precompile', n }));
const account: fc.Arbitrary<Target> = fc.constant({ to: 'account' });

function contractTargets(above: number): fc.Arbitrary<Target>[] {
  return above < CONTRACT_COUNT ? [fc.integer({ min: above, max: CONTRACT_COUNT - 1 }).map((index): Target => ({ to: 'contract', index }))] : [];
}

/** Ops without calls or creates, for init code and created contracts. */
function leafOp(targets: fc.Arbitrary<Target>): fc.Arbitrary<Op> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.record({ op: fc.constant('sstore' as const), slot, value: word }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('sload' as const), slot }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('mstore' as const), offset, value: word }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('log' as const), topics: fc.integer({ min: 0, max: 4 }), offset, size }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('keccak' as const), offset, size }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('ext' as const), kind: fc.constantFrom('BALANCE' as const, 'EXTCODESIZE' as const, 'EXTCODEHASH' as const, 'EXTCODECOPY' as const), of: targets }) },
  );
}

const leafTargets = fc.oneof(fresh, precompile, account, fc.constant<Target>({ to: 'self' }), ...contractTargets(0));

function leafEnd(targets: fc.Arbitrary<Target>): fc.Arbitrary<End> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant<End>({ end: 'stop' }) },
    { weight: 3, arbitrary: fc.record({ end: fc.constantFrom('return' as const, 'revert' as const), offset, size }) },
    { weight: 2, arbitrary: fc.record({ end: fc.constantFrom('invalid' as const, 'undefined' as const, 'badjump' as const, 'spin' as const, 'underflow' as const) }) },
    { weight: 2, arbitrary: fc.record({ end: fc.constant('selfdestruct' as const), to: targets }) },
  );
}

const leafCode: fc.Arbitrary<Code> = fc.record({ body: fc.array(leafOp(leafTargets), { maxLength: 4 }), end: leafEnd(leafTargets) });

export const initArb: fc.Arbitrary<Init> = fc.record({
  body: fc.array(leafOp(leafTargets), { maxLength: 3 }),
  end: fc.oneof(
    { weight: 6, arbitrary: fc.constant('deploy' as const) },
    { weight: 1, arbitrary: fc.constantFrom('deployEF' as const, 'deployTooBig' as const, 'revert' as const, 'invalid' as const, 'spin' as const, 'stop' as const) },
  ),
  runtime: leafCode,
});

const callKind = fc.constantFrom<CallKind>('CALL', 'CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL');
const callGas = fc.oneof(fc.constant<'all'>('all'), fc.constantFrom(0, 100, 2300, 10_000, 100_000));

function callOp(index: number): fc.Arbitrary<Op> {
  const unbounded = fc.oneof(fresh, precompile, account, ...contractTargets(index + 1));
  const common = { op: fc.constant('call' as const), kind: callKind, value, args: fc.tuple(offset, size, offset, size) };
  return fc.oneof(
    { weight: 5, arbitrary: fc.record({ ...common, to: unbounded, gas: callGas }) },
    // A call to itself recurses: only with a fixed gas allowance, so the recursion ends soon.
    { weight: 1, arbitrary: fc.record({ ...common, to: fc.constant<Target>({ to: 'self' }), gas: fc.constantFrom(2300, 10_000, 30_000) }) },
  );
}

const createOp: fc.Arbitrary<Op> = fc.record({
  op: fc.constant('create' as const),
  kind: fc.constantFrom('CREATE' as const, 'CREATE2' as const),
  salt: fc.constantFrom(0n, 1n),
  value: fc.constantFrom(0n, 0n, 1n, 2n ** 200n),
  init: initArb,
  thenCall: fc.boolean(),
});

/** Contract `index` of a program. */
export function contractArb(index: number): fc.Arbitrary<Code> {
  const targets = fc.oneof(fresh, precompile, account, fc.constant<Target>({ to: 'self' }), ...contractTargets(0));
  const op = fc.oneof(
    { weight: 6, arbitrary: leafOp(targets) },
    { weight: 3, arbitrary: callOp(index) },
    { weight: 1, arbitrary: createOp },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('returndatacopy' as const), size: fc.constantFrom(0, 1, 32) }) },
  );
  return fc.record({ body: fc.array(op, { maxLength: 6 }), end: leafEnd(targets) });
}

const sender = fc.integer({ min: 0, max: 3 });
const txGas = fc.oneof({ weight: 3, arbitrary: fc.constant<'ample'>('ample') }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 80_000 }) });
const txValue = fc.constantFrom(0n, 0n, 1n, 10n ** 15n);

export const txArb: fc.Arbitrary<Tx> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      tx: fc.constant('call' as const),
      from: sender,
      to: fc.oneof({ weight: 5, arbitrary: contractTargets(0)[0]! }, { weight: 1, arbitrary: fresh }, { weight: 1, arbitrary: account }, { weight: 1, arbitrary: precompile }),
      value: txValue,
      gas: txGas,
      data: fc.uint8Array({ maxLength: 8 }).map((b) => `0x${Buffer.from(b).toString('hex')}`),
    }),
  },
  { weight: 2, arbitrary: fc.record({ tx: fc.constant('create' as const), from: sender, init: initArb, value: txValue, gas: txGas }) },
);

export const programArb: fc.Arbitrary<Program> = fc.record({
  contracts: fc.tuple(...Array.from({ length: CONTRACT_COUNT }, (_, i) => contractArb(i))),
  blocks: fc.array(fc.array(txArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
});
