// Per-key token buckets of compute units. A bucket refills at the tier's rate up to its burst;
// a request is admitted when the bucket holds its cost. Behind an interface so a limiter shared
// across processes (Redis) can replace it in the scale-out issue.
import type { Clock } from '../clock.js';
import type { TierLimit } from './tiers.js';

export type RateDecision = { ok: true } | { ok: false; retryAfterSec: number };

export interface RateLimiter {
  /** Takes `cost` units from the key's bucket, or says how long to wait before it would fit. */
  take(keyId: string, cost: number, limit: TierLimit): RateDecision | Promise<RateDecision>;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * In-process token buckets. A cost larger than the whole burst is admitted once the bucket is
 * full and leaves it in debt, so an oversized batch waits its turn instead of never fitting.
 */
export function createTokenBucketLimiter(options: { clock: Clock }): RateLimiter {
  const buckets = new Map<string, Bucket>();
  return {
    take(keyId, cost, limit) {
      const now = options.clock.now();
      let bucket = buckets.get(keyId);
      if (!bucket) {
        bucket = { tokens: limit.burstCu, updatedAt: now };
        buckets.set(keyId, bucket);
      } else if (now > bucket.updatedAt) {
        bucket.tokens = Math.min(limit.burstCu, bucket.tokens + ((now - bucket.updatedAt) / 1000) * limit.cuPerSecond);
        bucket.updatedAt = now;
      }
      const needed = Math.min(cost, limit.burstCu);
      // The epsilon absorbs float drift, so waiting exactly Retry-After always suffices.
      if (bucket.tokens + 1e-9 >= needed) {
        bucket.tokens -= cost;
        return { ok: true };
      }
      return { ok: false, retryAfterSec: Math.max(1, Math.ceil((needed - bucket.tokens) / limit.cuPerSecond)) };
    },
  };
}
