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

  it('behavior: a cost above the burst waits for a full bucket and leaves debt', () => {
    const clock = createManualClock();
    const limiter = createTokenBucketLimiter({ clock });
    limiter.take('k', 100, limit);
    expect(limiter.take('k', 500, limit)).toEqual({ ok: false, retryAfterSec: 1 });
    clock.advance(1000);
    expect(limiter.take('k', 500, limit)).toEqual({ ok: true });
    // 300 CU of debt plus 10 needed: 3.1 s at 100 CU/s.
    expect(limiter.take('k', 10, limit)).toEqual({ ok: false, retryAfterSec: 4 });
  });
});
