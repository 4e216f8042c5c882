import { describe, expect, it } from 'vitest';
import { mainThreadRunQueueWaitMs } from './runQueueWait.js';

describe('mainThreadRunQueueWaitMs', () => {
  it('default: a non-decreasing count of milliseconds', () => {
    const first = mainThreadRunQueueWaitMs();
    let x = 0;
    for (let i = 0; i < 1e6; i++) x += i;
    expect(x).toBeGreaterThan(0);
    const second = mainThreadRunQueueWaitMs();
    expect(Number.isFinite(first)).toBe(true);
    expect(second).toBeGreaterThanOrEqual(first);
  });
});
