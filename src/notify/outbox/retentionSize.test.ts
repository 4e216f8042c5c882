import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../../store/sqlite/sqliteDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { toNumber, type SqlDatabase } from '../../store/sql.js';
import { insertTestWebhook } from '../testing/notifyTestDatabases.js';
import { createManualClock } from '../clock.js';
import { silentLogger } from '../notifyLogger.js';
import { appendEvents } from './appendEvents.js';
import { claimDeliveries, type ClaimOptions } from './claimDeliveries.js';
import { recordAttempt } from './recordAttempt.js';
import { createRetentionPruner } from './retentionPruner.js';

const HOUR = 3_600_000;
const WEBHOOKS = 8;
const EVENTS_PER_WEBHOOK = 25;
const BODY_BYTES = 2_000;

/**
 * SQLite keeps a file's freed pages on its freelist and reuses them for new rows, so pruning in
 * step with new deliveries holds the file's page count flat without VACUUM (which would block
 * the event loop on a large file).
 */
async function pageCounts(db: SqlDatabase): Promise<{ pages: number; free: number }> {
  const [p] = await db.query<{ page_count: unknown }>('PRAGMA page_count');
  const [f] = await db.query<{ freelist_count: unknown }>('PRAGMA freelist_count');
  return { pages: toNumber(p!.page_count), free: toNumber(f!.freelist_count) };
}

describe('retention keeps the SQLite store flat', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** Each cycle is one simulated hour: 200 events of ~2 KB appended and delivered; then a prune run. */
  async function run(cycles: number, prune: boolean): Promise<number[]> {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-retention-'));
    dirs.push(dir);
    const db = createSqliteDatabase({ filename: join(dir, 'service.sqlite') });
    try {
      await migrate(db);
      const clock = createManualClock();
      const webhooks: { id: string }[] = [];
      for (let i = 0; i < WEBHOOKS; i++) webhooks.push(await insertTestWebhook(db, 'http://127.0.0.1:1/hook'));
      const pruner = createRetentionPruner({ db, clock, policy: { deliveredMs: 2 * HOUR, deadLetterMs: 2 * HOUR }, logger: silentLogger, batchSize: 100, maxBatchesPerRun: 1_000 });
      const pages: number[] = [];
      for (let c = 0; c < cycles; c++) {
        await db.transaction((tx) =>
          appendEvents(
            tx,
            webhooks.flatMap((w) => Array.from({ length: EVENTS_PER_WEBHOOK }, (_, i) => ({ webhookId: w.id, type: 'ADDRESS_ACTIVITY' as const, event: { c, i, pad: 'p'.repeat(BODY_BYTES) } }))),
            { nowMs: clock.now() },
          ),
        );
        const claim = (): ClaimOptions => ({ workerId: 'w', nowMs: clock.now(), leaseMs: 10_000, limit: WEBHOOKS });
        let jobs = await claimDeliveries(db, claim());
        while (jobs.length > 0) {
          const next = [];
          for (const job of jobs) {
            clock.advance(1);
            const attempt = { id: `wha_${job.eventId}`, attemptedAt: clock.now(), latencyMs: 1, statusCode: 200, error: null, responseBody: 'ok', requestHeaders: { 'webhook-id': job.eventId } };
            const r = await recordAttempt(db, job, attempt, { status: 'succeeded', nextAttemptAt: clock.now(), retryDeadlineAt: null }, null, claim());
            if (r.next) next.push(r.next);
          }
          jobs = next;
        }
        clock.advance(HOUR);
        if (prune) await pruner.runOnce();
        await db.execute('PRAGMA wal_checkpoint(TRUNCATE)');
        pages.push((await pageCounts(db)).pages);
      }
      const left = await db.query<{ n: unknown }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'");
      expect(toNumber(left[0]!.n)).toBe(0);
      return pages;
    } finally {
      await db.close();
    }
  }

  it('behavior: under continuous deliveries the page count stops growing once pruning keeps pace; without it, it grows', { timeout: 120_000 }, async () => {
    const CYCLES = 14;
    const pruned = await run(CYCLES, true);
    const kept = await run(CYCLES, false);
    // Three cycles of rows are alive at most (two within the bound, one just appended); from then
    // on new rows fill freed pages.
    const plateau = pruned[4]!;
    for (const p of pruned.slice(5)) expect(p, `pages per cycle: ${pruned.join(' ')}`).toBeLessThanOrEqual(Math.ceil(plateau * 1.05));
    expect(kept[CYCLES - 1]!).toBeGreaterThan(2.5 * pruned[CYCLES - 1]!);
    console.log(`retention: SQLite pages per simulated hour with pruning ${pruned.join(' ')}; without ${kept.join(' ')}`);
  });
});
