import { describe, expect, it } from 'vitest';
import { createManualClock } from '../clock.js';
import { createTokenBucketLimiter } from './tokenBucket.js';

describe('createTokenBucketLimiter', () => {
  const limit = { cuPerSecond: 100, burstCu: 200 };

  it('default: admits up to the burst, then refuses with the wait in whole seconds', () => {
    const clock = createManualClock();
    const limiter = createTokenBucketLimiter({ clock });
    expect(limiter.take('k', 150, limit)).toEqual({ ok: true });
    expect(limiter.take('k', 50, limit)).toEqual({ ok: true });
    expect(limiter.take('k', 40, limit)).toEqual({ ok: false, retryAfterSec: 1 });
    clock.advance(399);
    expect(limiter.take('k', 40, limit)).toEqual({ ok: false, retryAfterSec: 1 });
    clock.advance(1);
    expect(limiter.take('k', 40, limit)).toEqual({ ok: true });
  });

  it('behavior: refills at the rate and never above the burst', () => {
    const clock = createManualClock();
    const limiter = createTokenBucketLimiter({ clock });
    limiter.take('k', 200, limit);
    clock.advance(60_000);
    expect(limiter.take('k', 200, limit)).toEqual({ ok: true });
    expect(limiter.take('k', 1, limit)).toEqual({ ok: false, retryAfterSec: 1 });
  });

  it('behavior: buckets are per key', () => {
    const limiter = createTokenBucketLimiter({ clock: createManualClock() });
    expect(limiter.take('a', 200, limit)).toEqual({ ok: true });
    expect(limiter.take('b', 200, limit)).toEqual({ ok: true });
    expect(limiter.take('a', 10, limit)).toMatchObject({ ok: false });
  });

  it('error: a cost above the burst is a caller error, never debt', () => {
    const limiter = createTokenBucketLimiter({ clock: createManualClock() });
    expect(() => limiter.take('k', 201, limit)).toThrow('a cost of 201 compute units can never fit a bucket of 200');
    expect(limiter.take('k', 200, limit)).toEqual({ ok: true });
  });

  it('behavior: a refund gives units back, never above the burst', () => {
    const clock = createManualClock();
    const limiter = createTokenBucketLimiter({ clock });
    limiter.take('k', 200, limit);
    limiter.refund('k', 150, limit);
    expect(limiter.take('k', 150, limit)).toEqual({ ok: true });
    expect(limiter.take('k', 1, limit)).toEqual({ ok: false, retryAfterSec: 1 });
    limiter.refund('k', 10_000, limit);
    expect(limiter.take('k', 200, limit)).toEqual({ ok: true });
    expect(limiter.take('k', 1, limit)).toMatchObject({ ok: false });
  });
});
