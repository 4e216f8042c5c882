import { describe, expect, it } from 'vitest';
import { slopePerSec, windowFloors } from './slope.js';

describe('slope', () => {
  it('default: the least-squares slope of a line with noise, and floors per window', () => {
    const samples = Array.from({ length: 100 }, (_, i) => ({ t: i, value: 3 * i + (i % 2 ? 5 : -5) }));
    expect(slopePerSec(samples)).toBeCloseTo(3, 1);
    expect(slopePerSec([{ t: 1, value: 9 }])).toBe(0);
    const saw = Array.from({ length: 60 }, (_, i) => ({ t: i, value: 100 + (i % 10) * 50 }));
    expect(windowFloors(saw, 10)).toEqual([0, 1, 2, 3, 4, 5].map((w) => ({ t: w * 10 + 5, value: 100 })));
    expect(slopePerSec(windowFloors(saw, 10))).toBe(0);
  });
});
