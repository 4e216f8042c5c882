// Per-key token buckets of compute units. A bucket refills at the tier's rate up to its burst;
// a request is admitted when the bucket holds its cost. Behind an interface so a limiter shared
// across processes (Redis) can replace it in the scale-out issue.
import type { Clock } from '../clock.js';
import type { TierLimit } from './tiers.js';
import type { ApiKeyTier } from '../../store/types.js';

export type RateDecision = { ok: true } | { ok: false; retryAfterSec: number };

export interface RateLimiter {
  /**
   * Takes `cost` units from the key's bucket, or says how long to wait before it would fit.
   * `cost` is at most `limit.burstCu`: callers refuse larger costs first, since they never fit.
   * `tier` lets a shared limiter decide per tier what to do when its store fails.
   */
  take(keyId: string, cost: number, limit: TierLimit, tier?: ApiKeyTier): RateDecision | Promise<RateDecision>;
  /** Gives back units taken for work that was refused before it started (never above the burst). */
  refund(keyId: string, cost: number, limit: TierLimit): void | Promise<void>;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * In-process token buckets. A bucket never goes below zero: a cost above the burst is a caller
 * error (such a request is refused whole before it reaches the limiter), so no key runs into debt.
 */
export function createTokenBucketLimiter(options: { clock: Clock }): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const refilled = (keyId: string, limit: TierLimit): Bucket => {
    const now = options.clock.now();
    let bucket = buckets.get(keyId);
    if (!bucket) {
      bucket = { tokens: limit.burstCu, updatedAt: now };
      buckets.set(keyId, bucket);
    } else if (now > bucket.updatedAt) {
      bucket.tokens = Math.min(limit.burstCu, bucket.tokens + ((now - bucket.updatedAt) / 1000) * limit.cuPerSecond);
      bucket.updatedAt = now;
    }
    return bucket;
  };
  return {
    take(keyId, cost, limit) {
      if (cost > limit.burstCu) throw new RangeError(`a cost of ${cost} compute units can never fit a bucket of ${limit.burstCu}`);
      const bucket = refilled(keyId, limit);
      // The epsilon absorbs float drift, so waiting exactly Retry-After always suffices.
      if (bucket.tokens + 1e-9 >= cost) {
        bucket.tokens = Math.max(0, bucket.tokens - cost);
        return { ok: true };
      }
      return { ok: false, retryAfterSec: Math.max(1, Math.ceil((cost - bucket.tokens) / limit.cuPerSecond)) };
    },
    refund(keyId, cost, limit) {
      const bucket = refilled(keyId, limit);
      bucket.tokens = Math.min(limit.burstCu, bucket.tokens + cost);
    },
  };
}
