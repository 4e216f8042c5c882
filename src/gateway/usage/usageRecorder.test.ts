import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createSqliteDatabase } from '../../store/sqlite/sqliteDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { createKeysRepository } from '../../store/keysRepository.js';
import type { SqlDatabase } from '../../store/sql.js';
import type { ApiKeyRepository } from '../../store/types.js';
import { createManualClock } from '../clock.js';
import { createUsageRecorder, utcDay } from './usageRecorder.js';

const DAY0 = Date.UTC(2026, 0, 1, 23, 59, 59);

describe('createUsageRecorder', () => {
  let db: SqlDatabase;
  let repo: ApiKeyRepository;
  beforeEach(async () => {
    db = createSqliteDatabase({ filename: ':memory:' });
    await migrate(db);
    repo = createKeysRepository(db);
    await repo.create({ id: 'k1', name: 'k', tier: 'free', keyHash: 'h', keyPrefix: 'p', allowedOrigins: null, createdAt: 0 });
  });
  afterEach(async () => db.close());

  it('default: utcDay formats UTC days', () => {
    expect(utcDay(DAY0)).toBe('2026-01-01');
    expect(utcDay(DAY0 + 1000)).toBe('2026-01-02');
  });

  it('behavior: counts per day and method, written on flush with last-used', async () => {
    const clock = createManualClock(DAY0);
    const usage = createUsageRecorder({ repo, clock, logger: pino({ level: 'silent' }), flushIntervalMs: 60_000 });
    usage.record('k1', 'eth_blockNumber', 10);
    usage.record('k1', 'eth_blockNumber', 10);
    usage.record('k1', 'trace_transaction', 40);
    usage.record('k1', 'request_body', 7, 0);
    expect(await repo.usage('k1', '2026-01-01', '2026-01-02')).toEqual([]);
    clock.advance(1000);
    usage.record('k1', 'eth_blockNumber', 10);
    await usage.close();
    expect(await repo.usage('k1', '2026-01-01', '2026-01-02')).toEqual([
      { day: '2026-01-01', method: 'eth_blockNumber', requests: 2, computeUnits: 20 },
      { day: '2026-01-01', method: 'request_body', requests: 0, computeUnits: 7 },
      { day: '2026-01-01', method: 'trace_transaction', requests: 1, computeUnits: 40 },
      { day: '2026-01-02', method: 'eth_blockNumber', requests: 1, computeUnits: 10 },
    ]);
    expect((await repo.findById('k1'))?.lastUsedAt).toBe(DAY0 + 1000);
  });

  it('error: a failed write is kept and retried on the next flush', async () => {
    const clock = createManualClock(DAY0);
    let fail = true;
    const flaky: ApiKeyRepository = {
      ...repo,
      addUsage: async (deltas) => {
        if (fail) throw new Error('store down');
        return repo.addUsage(deltas);
      },
    };
    const usage = createUsageRecorder({ repo: flaky, clock, logger: pino({ level: 'silent' }), flushIntervalMs: 60_000 });
    usage.record('k1', 'eth_call', 26);
    await usage.flush();
    fail = false;
    usage.record('k1', 'eth_call', 26);
    await usage.close();
    expect(await repo.usage('k1', '2026-01-01', '2026-01-01')).toEqual([{ day: '2026-01-01', method: 'eth_call', requests: 2, computeUnits: 52 }]);
  });
});
