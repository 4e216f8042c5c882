// The Redis the tests use (127.0.0.1:6379 on these machines, TRACEHOOK_TEST_REDIS_URL elsewhere),
// and whether it answers: tests that need it skip loudly when it does not.
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TRACEHOOK_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisReachable(url = TEST_REDIS_URL): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
