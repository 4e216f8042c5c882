import { describe, expect, it } from 'vitest';
import { backoffDelayMs, nextDeliveryState, parseRetryAfterMs } from './retrySchedule.js';

const schedule = { baseDelayMs: 1_000, maxDelayMs: 60_000, retryWindowMs: 600_000 };
const T = 1_700_000_000_000;

describe('backoffDelayMs', () => {
  it('default: doubles from the base up to the cap, with jitter between half and all of the step', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, () => 0, schedule))).toEqual([500, 1_000, 2_000, 4_000]);
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, () => 0.999999, schedule))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(backoffDelayMs(30, () => 1, schedule)).toBe(60_000);
    expect(backoffDelayMs(10_000, () => 0, schedule)).toBe(30_000);
  });
});

describe('parseRetryAfterMs', () => {
  it('args: delta-seconds and HTTP-date', () => {
    expect(parseRetryAfterMs('120', T)).toBe(120_000);
    expect(parseRetryAfterMs(new Date(T + 30_000).toUTCString(), T)).toBe(30_000);
    expect(parseRetryAfterMs(new Date(T - 30_000).toUTCString(), T)).toBe(0);
  });
  it('error: absent or garbage is ignored', () => {
    expect(parseRetryAfterMs(undefined, T)).toBeNull();
    expect(parseRetryAfterMs('soon', T)).toBeNull();
    expect(parseRetryAfterMs('-5', T)).toBeNull();
  });
});

describe('nextDeliveryState', () => {
  const facts = { attemptedAt: T, attemptsBefore: 0, retryDeadlineAt: null, retryAfterMs: null };
  it('default: only HTTP 200 is success', () => {
    expect(nextDeliveryState({ ...facts, statusCode: 200 }, () => 0, schedule).status).toBe('succeeded');
    for (const status of [201, 204, 301, 400, 500, null]) {
      expect(nextDeliveryState({ ...facts, statusCode: status }, () => 0, schedule).status).toBe('pending');
    }
  });
  it('behavior: the first failure opens the retry window; Retry-After wins when longer', () => {
    expect(nextDeliveryState({ ...facts, statusCode: 500 }, () => 0, schedule)).toEqual({ status: 'pending', nextAttemptAt: T + 500, retryDeadlineAt: T + 600_000 });
    expect(nextDeliveryState({ ...facts, statusCode: 429, retryAfterMs: 90_000 }, () => 0, schedule).nextAttemptAt).toBe(T + 90_000);
  });
  it('behavior: the last retry lands on the deadline, and a failure at the deadline is final', () => {
    const late = { ...facts, statusCode: 500, attemptedAt: T + 599_000, attemptsBefore: 9, retryDeadlineAt: T + 600_000 };
    expect(nextDeliveryState(late, () => 0, schedule)).toEqual({ status: 'pending', nextAttemptAt: T + 600_000, retryDeadlineAt: T + 600_000 });
    expect(nextDeliveryState({ ...late, attemptedAt: T + 600_000 }, () => 0, schedule).status).toBe('failed');
  });
});
