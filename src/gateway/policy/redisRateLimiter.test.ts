import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { TEST_REDIS_URL as REDIS_URL, redisReachable } from '../../testing/testRedis.js';
import { systemClock } from '../clock.js';
import { createRedisRateLimiter, type RedisRateLimiter } from './redisRateLimiter.js';

const reachable = await redisReachable();
if (!reachable) console.warn(`\n!!!!! shared compute-unit budget tests SKIPPED: no Redis at ${REDIS_URL} !!!!!\n`);

const limit = { cuPerSecond: 10, burstCu: 100 };

describe.skipIf(!reachable)('redisRateLimiter', () => {
  const limiters: RedisRateLimiter[] = [];
  const make = (url = REDIS_URL, prefix = `test:${randomBytes(4).toString('hex')}:`) => {
    const l = createRedisRateLimiter({ url, clock: systemClock, prefix, timeoutMs: 200 });
    limiters.push(l);
    return { l, prefix };
  };
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((l) => l.close()));
  });

  it('behavior: two gateways share one key\'s bucket (the burst holds in total, not per process)', async () => {
    const { l: a, prefix } = make();
    const { l: b } = make(REDIS_URL, prefix);
    await new Promise((r) => setTimeout(r, 100));
    expect(await a.take('k1', 60, limit, 'free')).toEqual({ ok: true });
    const refused = await b.take('k1', 60, limit, 'free');
    expect(refused).toEqual({ ok: false, retryAfterSec: 2 });
    // Another key has its own bucket; a refund gives units back to the shared one.
    expect(await b.take('k2', 60, limit, 'free')).toEqual({ ok: true });
    await a.refund('k1', 30, limit);
    expect(await b.take('k1', 60, limit, 'free')).toEqual({ ok: true });
  });

  it('error: with Redis unreachable, free keys are refused and paid keys use the local bucket', async () => {
    const { l } = make('redis://127.0.0.1:1');
    expect(await l.take('k', 10, limit, 'free')).toEqual({ ok: false, retryAfterSec: 1 });
    expect(await l.take('k', 10, limit, 'enterprise')).toEqual({ ok: true });
    expect(await l.take('k', 95, limit, 'payg')).toMatchObject({ ok: false });
  });
});
