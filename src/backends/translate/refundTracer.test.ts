// Unit tests of the JavaScript refund tracer's result and of solving EIP-3529's capped refund.
import { describe, expect, it } from 'vitest';
import { executionGasBeforeRefund, refundFromTracerResult } from './refundTracer.js';

describe('refundFromTracerResult', () => {
  it("default: the counter at the root's own last step", () => {
    expect(refundFromTracerResult({ refund: 4800, depth: 1, op: 'STOP' })).toBe(4800n);
    expect(refundFromTracerResult({ refund: 0, depth: 0, op: '' })).toBe(0n);
  });
  it('args: a last step inside a child or before an implicit end does not show the final counter', () => {
    expect(refundFromTracerResult({ refund: 4800, depth: 2, op: 'RETURN' })).toBeUndefined();
    expect(refundFromTracerResult({ refund: 4800, depth: 1, op: 'SSTORE' })).toBeUndefined();
  });
  it('error: a malformed result is the upstream\'s fault', () => {
    expect(() => refundFromTracerResult({ refund: -1, depth: 1, op: 'STOP' })).toThrow(/`refund` is not a count/);
    expect(() => refundFromTracerResult('x')).toThrow(/not an object/);
  });
});

describe('executionGasBeforeRefund', () => {
  it('default: receipt plus an uncapped refund, less intrinsic gas', () => {
    expect(executionGasBeforeRefund(50_000n, 21_000n, 4_800n)).toBe(33_800n);
  });
  it('args: a capped refund (a fifth of the total) is solved for the total, and an ambiguous total is unknown', () => {
    // total 60,001: refund capped at 12,000, receipt 48,001.
    expect(executionGasBeforeRefund(48_001n, 21_000n, 20_000n)).toBe(39_001n);
    // totals 59,999 and 60,000 both give a receipt of 48,000.
    expect(executionGasBeforeRefund(48_000n, 21_000n, 20_000n)).toBeUndefined();
  });
});
