// Unit tests of the callTracer parser: frames, log indices, the root's gas figures, gaps and malformed trees.
import { describe, expect, it } from 'vitest';
import type { RecordedTx } from '../../engine/record/types.js';
import { renderCallTracer } from '../../engine/render/callTracer.js';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { recordFromCallTracer } from './parseCallTracer.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';

const tx = (over: Partial<RecordedTx> = {}): RecordedTx => ({
  from: new Uint8Array(20).fill(0xa1),
  to: new Uint8Array(20).fill(0xb2),
  value: 0n,
  gasLimit: 100_000n,
  intrinsicGas: 21_000n,
  gasUsed: 50_000n,
  executionGasUsed: 0n,
  gasPrice: 1n,
  output: new Uint8Array(0),
  error: undefined,
  createdAddress: undefined,
  ...over,
});

const LOG = (position: string) => ({ address: B, topics: ['0x' + '11'.repeat(32)], data: '0x', position });

const tree = {
  type: 'CALL',
  from: A,
  to: B,
  gas: '0x186a0',
  gasUsed: '0xc350',
  input: '0x',
  value: '0x0',
  logs: [LOG('0x0'), LOG('0x2')],
  calls: [
    { type: 'CALL', from: B, to: C, gas: '0x1000', gasUsed: '0x1000', input: '0x', value: '0x0', error: 'out of gas', logs: [LOG('0x0')] },
    { type: 'STATICCALL', from: B, to: '0x0000000000000000000000000000000000000001', gas: '0x100', gasUsed: '0x10', input: '0x', output: '0x' },
  ],
};

describe('recordFromCallTracer', () => {
  it('default: frames, logs in execution order with a failed frame giving its index back, and the root from the transaction', () => {
    const { record, gaps } = recordFromCallTracer({ trace: tree, tx: tx(), withLog: true, refundCounter: 0n, floorGas: 0n });
    expect(record.frames.map((f) => [f.kind, f.parent, f.depth, f.precompile, f.started])).toEqual([
      ['CALL', -1, 0, false, true],
      ['CALL', 0, 1, false, true],
      ['STATICCALL', 0, 1, true, true],
    ]);
    expect(record.frames[1]!.error?.kind).toBe('outOfGas');
    // Root log at position 0 → 0; the failed child's log takes 1 and gives it back; the root's log after both calls → 1.
    expect(record.logs.map((l) => [l.frame, l.indexInTx])).toEqual([[0, 0], [0, 1], [1, 1]]);
    expect(record.frames[0]!.gas).toBe(79_000n);
    expect(record.tx.executionGasUsed).toBe(29_000n);
    expect(gaps.size).toBe(0);
    // The renderer drops the failed frame's log and takes root gas figures from the transaction.
    const rendered = renderCallTracer(record, { withLog: true }, { logIndexOffset: 5 }) as { gas: string; gasUsed: string; logs: { index: string }[]; calls: { logs?: unknown }[] };
    expect([rendered.gas, rendered.gasUsed, rendered.logs.map((l) => l.index), rendered.calls[0]!.logs]).toEqual(['0x186a0', '0xc350', ['0x5', '0x6'], undefined]);
  });

  it('args: an unknown refund is a gap for a succeeding root, none for a failed one; the EIP-7623 floor hides it too', () => {
    expect(recordFromCallTracer({ trace: tree, tx: tx(), withLog: false, refundCounter: undefined, floorGas: 0n }).gaps.get('refund')).toMatch(/refund/);
    const reverted = { ...tree, error: 'execution reverted' };
    expect(recordFromCallTracer({ trace: reverted, tx: tx(), withLog: false, refundCounter: undefined, floorGas: 0n }).gaps.has('refund')).toBe(false);
    const halted = recordFromCallTracer({ trace: { ...tree, error: 'invalid jump destination' }, tx: tx(), withLog: false, refundCounter: undefined, floorGas: 0n });
    expect(halted.record.tx.executionGasUsed).toBe(79_000n);
    expect(recordFromCallTracer({ trace: tree, tx: tx(), withLog: false, refundCounter: 0n, floorGas: 50_000n }).gaps.get('refund')).toMatch(/EIP-7623/);
    expect(recordFromCallTracer({ trace: tree, tx: tx(), withLog: false, refundCounter: 0n, floorGas: 0n }).gaps.get('logs')).toMatch(/withLog/);
  });

  it("args: anvil's revm halt names keep OpenEthereum's wording but not geth's; an unknown text keeps geth's", () => {
    const anvil = { ...tree, logs: [], calls: [{ ...tree.calls[0], error: 'OutOfOffset' }] };
    const parsed = recordFromCallTracer({ trace: anvil, tx: tx(), withLog: false, refundCounter: 0n, floorGas: 0n });
    expect(parsed.record.frames[1]!.error?.kind).toBe('returnDataOutOfBounds');
    expect(parsed.gaps.has('gethErrorText')).toBe(true);
    const odd = recordFromCallTracer({ trace: { ...tree, logs: [], calls: [{ ...tree.calls[0], error: 'something new' }] }, tx: tx(), withLog: false, refundCounter: 0n, floorGas: 0n });
    expect(odd.record.frames[1]!.error).toEqual({ kind: 'other', message: 'something new' });
    expect([odd.gaps.has('parityErrorText'), odd.gaps.has('gethErrorText')]).toEqual([true, false]);
  });

  it('args: a reverted create without its address is a createAddress gap', () => {
    const create = { ...tree, logs: [], calls: [{ type: 'CREATE', from: B, gas: '0x1000', gasUsed: '0x10', input: '0x00', value: '0x0', error: 'execution reverted', output: '0x' }] };
    expect(recordFromCallTracer({ trace: create, tx: tx(), withLog: false, refundCounter: 0n, floorGas: 0n }).gaps.has('createAddress')).toBe(true);
  });

  it.each([
    ['a frame that is not an object', { ...tree, calls: [7] }, /calls\[0\]: a frame is not an object/],
    ['an unknown type', { ...tree, type: 'JUMP' }, /unknown frame type/],
    ['gasUsed above gas', { ...tree, calls: [{ ...tree.calls[0], gasUsed: '0x1001' }] }, /calls\[0\]: gasUsed is above gas/],
    ["a child with more gas than its parent", { ...tree, logs: [], calls: [{ ...tree.calls[0], logs: [], gas: '0x10', gasUsed: '0x10', calls: [{ ...tree.calls[1], gas: '0x20' }] }] }, /gas is above the parent/],
    ['bad hex', { ...tree, input: '0xzz' }, /`input` is not valid/],
    ['a call without `to`', { ...tree, to: undefined }, /has no `to`/],
    ['a log past its frame\'s calls', { ...tree, logs: [LOG('0x3')] }, /position is past/],
    ['a SELFDESTRUCT root', { ...tree, type: 'SELFDESTRUCT' }, /root frame is a SELFDESTRUCT/],
  ])('error: %s is the upstream\'s fault, never a record', (_name, trace, message) => {
    const run = () => recordFromCallTracer({ trace, tx: tx(), withLog: true, refundCounter: 0n, floorGas: 0n });
    expect(run).toThrow(UpstreamTraceMalformedError);
    expect(run).toThrow(message);
  });

  it('error: a receipt above the gas limit is refused', () => {
    expect(() => recordFromCallTracer({ trace: tree, tx: tx({ gasUsed: 200_000n }), withLog: true, refundCounter: 0n, floorGas: 0n })).toThrow(/above the transaction gas limit/);
  });
});
