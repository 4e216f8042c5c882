// Unit tests of placing a receipt's logs into a record parsed from Parity entries: certain
// placements only.
import { describe, expect, it } from 'vitest';
import type { RecordedTx } from '../../engine/record/types.js';
import { recordFromParityTrace } from './parseParityTrace.js';
import { placeReceiptLogs } from './receiptLogs.js';

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';
const tx = { from: new Uint8Array(20), to: undefined, value: 0n, gasLimit: 10n ** 6n, intrinsicGas: 0n, gasUsed: 0n, executionGasUsed: 0n, gasPrice: 0n, output: new Uint8Array(0), error: undefined, createdAddress: undefined } as RecordedTx;
const call = (traceAddress: number[], subtraces: number, from: string, to: string, callType = 'call', error?: string) => ({
  action: { from, callType, gas: '0x1000', input: '0x', to, value: '0x0' },
  ...(error ? { error, result: null } : { result: { gasUsed: '0x1', output: '0x' } }),
  subtraces,
  traceAddress,
  type: 'call',
});
const log = (address: string) => ({ address, topics: ['0x' + '22'.repeat(32)], data: '0x01' });
const recordOf = (entries: unknown[]) => recordFromParityTrace({ entries, tx }).record;

describe('placeReceiptLogs', () => {
  it('default: a log of the one childless frame running as its address is placed at position 0, in receipt order', () => {
    const record = recordOf([call([], 1, A, B), call([0], 0, B, C)]);
    expect(placeReceiptLogs(record, [log(C), log(C)])).toBe(true);
    expect(record.logs.map((l) => [l.frame, l.position, l.indexInTx])).toEqual([[1, 0, 0], [1, 0, 1]]);
    expect(record.frames[1]!.logs).toEqual([0, 1]);
  });
  it('args: a frame with calls, or two frames running as the address, leave the logs unplaced', () => {
    expect(placeReceiptLogs(recordOf([call([], 1, A, B), call([0], 0, B, C)]), [log(B)])).toBe(false);
    const delegated = recordOf([call([], 1, A, B), call([0], 0, B, C, 'delegatecall')]);
    expect(placeReceiptLogs(delegated, [log(B)])).toBe(false);
    expect(delegated.logs).toEqual([]);
  });
  it('args: a failed frame is not a candidate', () => {
    const record = recordOf([call([], 2, A, B), call([0], 0, B, C, 'call', 'Reverted'), call([1], 0, B, C)]);
    expect(placeReceiptLogs(record, [log(C)])).toBe(true);
    expect(record.logs[0]!.frame).toBe(2);
  });
  it('error: a malformed receipt log is the upstream\'s fault', () => {
    expect(() => placeReceiptLogs(recordOf([call([], 0, A, B)]), [{ address: B, topics: 'x' }])).toThrow(/topics is not a list/);
  });
});
