// The shared tier of the trace cache in Redis (`--redis-url`): one key per answer,
// `<prefix>tc:<network>:<chainId>:<sha256 of the L1 key>`, every one with a TTL, and a byte budget
// for all of them: each write adds its size to a counter of the current TTL window, and a write
// that would take the last two windows past the budget is skipped. Every key written in the last
// TTL is counted in those two windows, so what is live never exceeds the budget, whatever the
// traffic. A read or write that fails or takes longer than `timeoutMs` is a miss or a skipped
// write: Redis never fails or stalls a request.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { SharedCacheTier } from './sharedCacheTier.js';
import type { CacheMetrics } from './cacheMetrics.js';
import { ServiceError } from '../../../rpc/errors.js';

// KEYS[1] entry. ARGV: value, ttl ms, budget bytes, window counter prefix. Returns 1 stored, 0 full.
// The window counters' names are built here from Redis's clock (standalone Redis; not Redis Cluster).
const PUT_SCRIPT = `
local ttl = tonumber(ARGV[2])
local t = redis.call('TIME')
local w = math.floor((tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)) / ttl)
local cur = ARGV[4] .. w
local used = (tonumber(redis.call('GET', cur)) or 0) + (tonumber(redis.call('GET', ARGV[4] .. (w - 1))) or 0)
local size = string.len(ARGV[1]) + string.len(KEYS[1])
if used + size > tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('INCRBY', cur, size)
redis.call('PEXPIRE', cur, 2 * ttl + 1000)
return 1`;

export interface RedisSharedCacheOptions {
  /** `redis://host:port`. */
  url: string;
  /** Key prefix; the tier's keys are `<prefix>tc:…`. Default `tracehook:`. */
  prefix?: string;
  /** Life of an entry. Default 3,600 s. */
  ttlSec?: number;
  /** Bound of everything stored (values and keys), in bytes. Default 256 MiB. */
  maxBytes?: number;
  /** Largest single entry. Default maxBytes / 16. */
  maxEntryBytes?: number;
  /** Longest wait for Redis on a read or write; past it the read is a miss. Default 100 ms. */
  timeoutMs?: number;
  metrics?: CacheMetrics;
  logger?: { warn(fields: object, message: string): void };
}

export interface RedisSharedCache {
  /** The tier as one network sees it (its keys carry the network's name and chain id). */
  forNetwork(network: string, chainId: bigint): SharedCacheTier;
  /** Resolves once connected (tests; the service never waits: until then reads miss and writes are skipped). */
  connected(): Promise<void>;
  close(): Promise<void>;
}

type TraceRedis = Redis & { tracePut(key: string, value: string, ttlMs: number, maxBytes: number, windowPrefix: string): Promise<number> };

/** Redis did not answer a read or write of the shared tier in time (internal: the call is computed instead). */
class SharedCacheTimeoutError extends ServiceError {
  override name = 'SharedCacheTimeoutError';
}

/** `promise`, or a rejection after `ms` (the command itself is left to ioredis's own timeout). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SharedCacheTimeoutError(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function createRedisSharedCache(options: RedisSharedCacheOptions): RedisSharedCache {
  const prefix = `${options.prefix ?? 'tracehook:'}tc:`;
  const ttlMs = (options.ttlSec ?? 3600) * 1000;
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  const maxEntryBytes = options.maxEntryBytes ?? Math.floor(maxBytes / 16);
  const timeoutMs = options.timeoutMs ?? 100;
  const { metrics, logger } = options;
  // No offline queue and no per-command retries: while Redis is away every command fails at once.
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Our own bound (within) answers first; ioredis's ends the command itself a little later.
    commandTimeout: timeoutMs * 2,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 6), 5_000),
  }) as TraceRedis;
  redis.defineCommand('tracePut', { numberOfKeys: 1, lua: PUT_SCRIPT });
  redis.on('error', () => undefined);
  let lastWarnAt = 0;
  const warn = (error: unknown) => {
    const now = Date.now();
    if (now - lastWarnAt < 10_000) return;
    lastWarnAt = now;
    logger?.warn({ err: error }, 'shared trace cache unavailable (Redis): traces are computed by each gateway until it answers');
  };

  return {
    forNetwork(network, chainId) {
      const redisKey = (key: string) => `${prefix}${network}:${chainId}:${createHash('sha256').update(key).digest('base64url')}`;
      return {
        async get(keys) {
          if (keys.length === 0) return [];
          try {
            const values = await within(redis.mget(keys.map(redisKey)), timeoutMs);
            return values.map((v) => v ?? undefined);
          } catch (error) {
            metrics?.sharedLookup(network, error instanceof SharedCacheTimeoutError ? 'timeout' : 'error', keys.length);
            warn(error);
            return keys.map(() => undefined);
          }
        },
        put(key, text) {
          if (text.length > maxEntryBytes) {
            metrics?.sharedWrite(network, 'too_large');
            return;
          }
          within(redis.tracePut(redisKey(key), text, ttlMs, maxBytes, `${prefix}bytes:`), timeoutMs).then(
            (stored) => metrics?.sharedWrite(network, stored === 1 ? 'stored' : 'full'),
            (error: unknown) => {
              metrics?.sharedWrite(network, 'error');
              warn(error);
            },
          );
        },
      };
    },
    connected() {
      return redis.status === 'ready' ? Promise.resolve() : new Promise((resolve) => redis.once('ready', () => resolve()));
    },
    async close() {
      redis.disconnect();
    },
  };
}
