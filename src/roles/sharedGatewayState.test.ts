// Two gateway processes on one PostgreSQL database and one Redis (issue 17): a free key's compute
// units per second hold in total across both, and revoking the key on one reaches the other
// within a second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { TEST_POSTGRES_URL, postgresReachable } from '../store/testing/openTestDatabases.js';
import { TEST_REDIS_URL, redisReachable } from '../testing/testRedis.js';
import { scratchDatabase } from '../store/testing/scratchDatabase.js';

const REDIS_URL = TEST_REDIS_URL;

const ok = (await postgresReachable()) && (await redisReachable());
if (!ok) console.warn(`\n!!!!! shared gateway state test SKIPPED: needs PostgreSQL at ${TEST_POSTGRES_URL} and Redis at ${REDIS_URL} !!!!!\n`);

const call = async (gateway: TracehookProcess, apiKey: string) =>
  (await fetch(`${gateway.baseUrl}/v2/${apiKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) })).status;

describe.skipIf(!ok)('two gateways sharing PostgreSQL and Redis', () => {
  const scratch = scratchDatabase('tracehook_gw');
  const { url } = scratch;
  const dirs: string[] = [];
  let gateways: TracehookProcess[] = [];

  beforeAll(async () => {
    await scratch.create();
    const spawnGateway = (role: string) => {
      const dataDir = mkdtempSync(join(tmpdir(), `tracehook-gw-${role}-`));
      dirs.push(dataDir);
      return spawnTracehook({ dataDir, args: ['--role', role, '--database-url', url, '--redis-url', REDIS_URL, '--trace-workers', '0'] });
    };
    gateways = await Promise.all([spawnGateway('all'), spawnGateway('gateway')]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.kill('SIGKILL')));
    await scratch.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  it('behavior: a free key\'s 330 CU/s is a total across gateways, and its revocation reaches the other gateway within a second', async () => {
    const [a, b] = gateways as [TracehookProcess, TracehookProcess];
    const created = await fetch(`${a.baseUrl}/api/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': a.authToken }, body: JSON.stringify({ name: 'shared', tier: 'free' }) });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: string; api_key: string } };
    // 40 calls of 10 CU on each gateway at once: 800 CU against a bucket of 330 refilling 330/s.
    const started = Date.now();
    const statuses = await Promise.all([...Array.from({ length: 40 }, () => call(a, data.api_key)), ...Array.from({ length: 40 }, () => call(b, data.api_key))]);
    const elapsedSec = (Date.now() - started) / 1000;
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // Per-process buckets would admit 33 on each (66 and more); shared, the total is 33 plus refill.
    expect(admitted).toBeLessThanOrEqual(33 + Math.ceil(elapsedSec * 33) + 1);
    expect(admitted).toBeGreaterThanOrEqual(33);
    // Two full per-process buckets alone would admit 66 whatever the time taken.
    if (elapsedSec < 0.9) expect(admitted).toBeLessThan(66);

    await new Promise((r) => setTimeout(r, 1100));
    expect(await call(b, data.api_key)).toBe(200);
    const revoked = await fetch(`${a.baseUrl}/api/keys/${data.id}/revoke`, { method: 'POST', headers: { 'x-service-token': a.authToken } });
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    while ((await call(b, data.api_key)) === 200) {
      expect(Date.now() - revokedAt).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 20));
    }
    console.info(`shared gateways: ${admitted}/80 admitted in ${elapsedSec.toFixed(2)} s; revocation seen by the other gateway after ${Date.now() - revokedAt} ms`);
  }, 60_000);
});
