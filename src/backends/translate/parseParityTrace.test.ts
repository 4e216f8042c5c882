// Unit tests of the Parity entry parser: nesting into frames, render round trip, gaps of OpenEthereum-style entries, malformed lists.
import { describe, expect, it } from 'vitest';
import type { RecordedTx } from '../../engine/record/types.js';
import { renderParityTrace } from '../../engine/render/parityTrace.js';
import { NO_CONTEXT } from '../../engine/render/types.js';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { recordFromParityTrace } from './parseParityTrace.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';

const tx: RecordedTx = {
  from: new Uint8Array(20).fill(0xa1),
  to: new Uint8Array(20).fill(0xb2),
  value: 0n,
  gasLimit: 100_000n,
  intrinsicGas: 21_000n,
  gasUsed: 40_000n,
  executionGasUsed: 0n,
  gasPrice: 1n,
  output: new Uint8Array(0),
  error: undefined,
  createdAddress: undefined,
};

const call = (traceAddress: number[], subtraces: number, over: Record<string, unknown> = {}) => ({
  action: { from: A, callType: 'call', gas: '0x1000', input: '0x', to: B, value: '0x0' },
  result: { gasUsed: '0x100', output: '0x' },
  subtraces,
  traceAddress,
  type: 'call',
  ...over,
});

const entries = [
  call([], 2, { action: { from: A, callType: 'call', gas: '0x13498', input: '0x', to: B, value: '0x0' }, result: { gasUsed: '0x4e20', output: '0x01' } }),
  { action: { from: B, gas: '0x1000', init: '0x00', value: '0x0', creationMethod: 'create2' }, result: { address: C, code: '0x', gasUsed: '0x200' }, subtraces: 1, traceAddress: [0], type: 'create' },
  { action: { address: C, refundAddress: A, balance: '0x5' }, result: null, subtraces: 0, traceAddress: [0, 0], type: 'suicide' },
  call([1], 0, { error: 'Out of gas', result: null }),
];

describe('recordFromParityTrace', () => {
  it('default: the entries nest into frames and render back to themselves', () => {
    const { record, gaps } = recordFromParityTrace({ entries, tx });
    expect(record.frames.map((f) => [f.kind, f.parent, f.children])).toEqual([
      ['CALL', -1, [1, 3]],
      ['CREATE2', 0, [2]],
      ['SELFDESTRUCT', 1, []],
      ['CALL', 0, []],
    ]);
    // An exceptional halt used all its gas.
    expect(record.frames[3]!.gasUsed).toBe(0x1000n);
    expect(record.tx.executionGasUsed).toBe(0x4e20n);
    expect([...gaps.keys()].sort()).toEqual(['gethErrorText', 'logs']);
    expect(renderParityTrace(record, {}, NO_CONTEXT)).toEqual(entries);
  });

  it('args: OpenEthereum-style entries leave the reverted frame\'s gas and data and CREATE versus CREATE2 unknown', () => {
    const oe = [entries[0], { ...entries[1], action: { from: B, gas: '0x1000', init: '0x00', value: '0x0' }, error: 'Reverted', result: undefined, subtraces: 0 }, entries[3]];
    const { gaps } = recordFromParityTrace({ entries: oe.map((e, i) => (i === 0 ? { ...e!, subtraces: 2 } : i === 2 ? { ...e!, traceAddress: [1] } : e)), tx });
    expect([...gaps.keys()].sort()).toEqual(['creationMethod', 'frameGasUsed', 'gethErrorText', 'logs', 'revertOutput']);
  });

  it("args: core-geth's `\"result\": {}` on a failed entry reads as no result", () => {
    const failed = [call([], 0, { error: 'Bad jump destination', result: {} })];
    expect(recordFromParityTrace({ entries: failed, tx }).record.frames[0]!.gasUsed).toBe(0x1000n);
  });

  it.each([
    ['no entries', [], /non-empty list/],
    ['subtraces that do not match', [{ ...entries[0], subtraces: 3 }, ...entries.slice(1)], /`subtraces` says 3 but 2 are listed/],
    ['a child before its parent', [entries[0], entries[2], entries[1], entries[3]], /parent entry is not listed before it/],
    ['siblings out of order', [entries[0], entries[3], entries[1], entries[2]], /not in trace-address order/],
    ['a second top call', [entries[0], call([], 0)], /only it, must be the top call/],
    ['gasUsed above gas', [{ ...entries[0], subtraces: 1 }, call([0], 0, { result: { gasUsed: '0x2000', output: '0x' } })], /gasUsed is above gas/],
    ['a succeeded entry without result', [call([], 0, { result: undefined })], /has no `result`/],
    ['an unknown callType', [call([], 0, { action: { from: A, callType: 'jump', gas: '0x1', input: '0x', to: B, value: '0x0' } })], /unknown callType/],
  ])('error: %s is the upstream\'s fault', (_name, bad, message) => {
    const run = () => recordFromParityTrace({ entries: bad, tx });
    expect(run).toThrow(UpstreamTraceMalformedError);
    expect(run).toThrow(message);
  });
});
