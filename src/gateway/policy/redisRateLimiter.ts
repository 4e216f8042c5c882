// Compute-unit buckets shared by every gateway process: the token bucket of `tokenBucket.ts` kept
// in Redis and updated by one Lua script per request (atomic, on Redis's clock, so gateways on
// machines with different clocks agree). A key's 330 CU/s is then 330 CU/s in total.
// When Redis fails (down, slow past `timeoutMs`), the tier decides: paid tiers (payg, enterprise)
// fall back to this process's own bucket (fail open, each gateway then enforcing the limit on its
// own); free keys are refused (fail closed, Retry-After 1 s), as free traffic is where abuse comes from.
import { Redis } from 'ioredis';
import type { ApiKeyTier } from '../../store/types.js';
import type { Clock } from '../clock.js';
import type { TierLimit } from './tiers.js';
import { createTokenBucketLimiter, type RateDecision, type RateLimiter } from './tokenBucket.js';

// KEYS[1] bucket; ARGV cost, cuPerSecond, burst, refund (1/0). Returns {ok, retryAfterSec}.
const BUCKET_SCRIPT = `
local cost = tonumber(ARGV[1]); local rate = tonumber(ARGV[2]); local burst = tonumber(ARGV[3])
local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(b[1]) or burst; local ts = tonumber(b[2]) or now
if now > ts then tokens = math.min(burst, tokens + (now - ts) / 1000 * rate); ts = now end
local ok = 1; local wait = 0
if ARGV[4] == '1' then tokens = math.min(burst, tokens + cost)
elseif tokens + 1e-9 >= cost then tokens = math.max(0, tokens - cost)
else ok = 0; wait = math.max(1, math.ceil((cost - tokens) / rate)) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', ts)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {ok, wait}`;

/** Tiers that keep being served (by the local bucket) while Redis fails. */
export const FAIL_OPEN_TIERS: readonly ApiKeyTier[] = ['payg', 'enterprise'];

export interface RedisRateLimiterOptions {
  /** `redis://host:port`. */
  url: string;
  clock: Clock;
  /** Longest wait for Redis before the tier's failure rule applies. Default 250. */
  timeoutMs?: number;
  /** Key prefix (tests keep runs apart). Default `tracehook:cu:`. */
  prefix?: string;
  logger?: { warn(fields: object, message: string): void };
}

export interface RedisRateLimiter extends RateLimiter {
  close(): Promise<void>;
}

type BucketRedis = Redis & { cuBucket(key: string, cost: number, rate: number, burst: number, refund: string): Promise<[number, number]> };

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RedisRateLimiter {
  const timeoutMs = options.timeoutMs ?? 250;
  const prefix = options.prefix ?? 'tracehook:cu:';
  // No offline queue and no per-command retries: a request waits at most `timeoutMs` for Redis.
  const redis = new Redis(options.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: timeoutMs, lazyConnect: false }) as BucketRedis;
  redis.defineCommand('cuBucket', { numberOfKeys: 1, lua: BUCKET_SCRIPT });
  const local = createTokenBucketLimiter({ clock: options.clock });
  let lastWarnAt = 0;
  redis.on('error', () => undefined);

  function failed(error: unknown, keyId: string, cost: number, limit: TierLimit, tier: ApiKeyTier | undefined): RateDecision | Promise<RateDecision> {
    const now = options.clock.now();
    if (now - lastWarnAt > 10_000) {
      lastWarnAt = now;
      options.logger?.warn({ err: error }, 'shared compute-unit budget unavailable (Redis): paid tiers limited per process, free tier refused');
    }
    if (tier !== undefined && FAIL_OPEN_TIERS.includes(tier)) return local.take(keyId, cost, limit);
    return { ok: false, retryAfterSec: 1 };
  }

  return {
    async take(keyId, cost, limit, tier) {
      if (cost > limit.burstCu) throw new RangeError(`a cost of ${cost} compute units can never fit a bucket of ${limit.burstCu}`);
      try {
        const [ok, wait] = await redis.cuBucket(prefix + keyId, cost, limit.cuPerSecond, limit.burstCu, '0');
        return ok === 1 ? { ok: true } : { ok: false, retryAfterSec: wait };
      } catch (error) {
        return failed(error, keyId, cost, limit, tier);
      }
    },
    async refund(keyId, cost, limit) {
      await redis.cuBucket(prefix + keyId, cost, limit.cuPerSecond, limit.burstCu, '1').catch(() => local.refund(keyId, cost, limit));
    },
    async close() {
      redis.disconnect();
    },
  };
}
