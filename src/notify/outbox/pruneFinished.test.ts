import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { SqlDatabase } from '../../store/sql.js';
import { notifyTestDatabases, insertTestWebhook } from '../testing/notifyTestDatabases.js';
import { createManualClock } from '../clock.js';
import { silentLogger } from '../notifyLogger.js';
import { appendEvents } from './appendEvents.js';
import { claimDeliveries, type DeliveryJob } from './claimDeliveries.js';
import { recordAttempt, type NextState } from './recordAttempt.js';
import { getEvent, listAttempts, listEvents, replayEvent } from './deliveryLog.js';
import { pruneFinishedBatch } from './pruneFinished.js';
import { createRetentionPruner } from './retentionPruner.js';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;
const LEASE = 10_000;
const POLICY = { deliveredMs: 30 * DAY, deadLetterMs: 90 * DAY };

const attempt = (job: DeliveryJob, at: number, statusCode: number) => ({
  id: `wha_${job.eventId}_${at}_${statusCode}`,
  attemptedAt: at,
  latencyMs: 2,
  statusCode,
  error: null,
  responseBody: null,
  requestHeaders: { 'webhook-id': job.eventId },
});
const succeeded = (at: number): NextState => ({ status: 'succeeded', nextAttemptAt: at, retryDeadlineAt: null });
const retrying = (at: number): NextState => ({ status: 'pending', nextAttemptAt: at + 1_000, retryDeadlineAt: at + 600_000 });
const failed = (at: number): NextState => ({ status: 'failed', nextAttemptAt: at, retryDeadlineAt: null });

/** What one generated event goes through before the prune. */
type Fate = 'untouched' | 'retrying' | 'delivered' | 'dead' | 'replayed';
const FATES: readonly Fate[] = ['untouched', 'retrying', 'delivered', 'dead', 'replayed'];

for (const impl of notifyTestDatabases) {
  describe(`retention (${impl.name})`, () => {
    let db: SqlDatabase;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ db, cleanup } = await impl.open()));
    afterEach(async () => cleanup());

    const append = (webhookId: string, n: number, nowMs: number, bodyBytes = 16) =>
      db.transaction((tx) =>
        appendEvents(tx, Array.from({ length: n }, (_, i) => ({ webhookId, type: 'ADDRESS_ACTIVITY' as const, event: { n: i, pad: 'x'.repeat(bodyBytes) } })), { nowMs }),
      );
    /** Claims the job of `eventId`, a head or a due retry, at `at`; other claimed jobs are given back unrecorded. */
    async function claimOne(eventId: string, at: number): Promise<DeliveryJob> {
      const worker = `w_${eventId}`;
      const jobs = await claimDeliveries(db, { workerId: worker, nowMs: at, leaseMs: LEASE, limit: 500 });
      await db.execute('UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1 AND event_id <> $2', [worker, eventId]);
      const job = jobs.find((j) => j.eventId === eventId);
      if (!job) throw new Error(`event ${eventId} is not claimable`);
      return job;
    }
    const pendingIds = async () =>
      new Set((await db.query<{ event_id: string }>(`SELECT event_id FROM webhook_deliveries WHERE status = 'pending'`)).map((r) => r.event_id));

    it('error: pruning never removes a pending, retrying or replayed event, nor one inside its bound', async () => {
      // One webhook per event keeps every event its webhook's head, so any fate can be given to it.
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...FATES), fc.integer({ min: 0, max: 200 })), { minLength: 1, maxLength: 12 }), async (plan) => {
          await db.execute('DELETE FROM webhooks');
          const expectKept = new Set<string>();
          const expectGone = new Set<string>();
          const now = T0 + 400 * DAY;
          for (const [fate, ageDays] of plan) {
            const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
            const at = now - ageDays * DAY;
            const [e] = await append(w.id, 1, at - 1);
            const id = e!.id;
            if (fate === 'untouched') expectKept.add(id);
            else {
              const job = await claimOne(id, at);
              const ok = fate === 'delivered' || fate === 'replayed';
              const next = fate === 'retrying' ? retrying(at) : ok ? succeeded(at) : failed(at);
              await recordAttempt(db, job, attempt(job, at, ok ? 200 : 500), next, null);
              if (fate === 'replayed') expect(await replayEvent(db, w.id, id, now - 1, 600_000)).toBe('replayed');
              const bound = fate === 'dead' ? POLICY.deadLetterMs : POLICY.deliveredMs;
              if ((fate === 'delivered' || fate === 'dead') && now - at > bound) expectGone.add(id);
              else expectKept.add(id);
            }
          }
          const pendingBefore = await pendingIds();
          let r;
          do r = await pruneFinishedBatch(db, { ...POLICY, nowMs: now, batchSize: 3 });
          while (r.events > 0);
          for (const id of expectKept) {
            const rows = await db.query(`SELECT e.id FROM webhook_events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE e.id = $1`, [id]);
            expect(rows, `kept ${id}`).toHaveLength(1);
          }
          for (const id of expectGone) {
            expect(await db.query('SELECT id FROM webhook_events WHERE id = $1', [id])).toEqual([]);
            expect(await db.query('SELECT id FROM webhook_attempts WHERE event_id = $1', [id])).toEqual([]);
          }
          expect(await pendingIds()).toEqual(pendingBefore);
          // Every kept event that was attempted keeps its whole attempt log.
          const orphanAttempts = await db.query(`SELECT a.id FROM webhook_attempts a WHERE a.event_id <> '' AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = a.event_id)`);
          expect(orphanAttempts).toEqual([]);
        }),
        { numRuns: impl.name === 'sqlite' ? 40 : 15 },
      );
    });

    it('behavior: after pruning, the log lists only kept events, replay and lookup of a pruned one say not found, and seqs go on', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      const old = await append(w.id, 3, T0);
      for (const e of old) {
        const job = await claimOne(e.id, T0 + 1_000);
        await recordAttempt(db, job, attempt(job, T0 + 1_000, 200), succeeded(T0 + 1_000), null);
      }
      const later = await append(w.id, 2, T0 + 40 * DAY);
      const now = T0 + 40 * DAY + 1;
      expect(await pruneFinishedBatch(db, { ...POLICY, nowMs: now, batchSize: 100 })).toEqual({ events: 3, attempts: 3 });
      expect((await listEvents(db, w.id, { limit: 10 })).items.map((e) => e.seq)).toEqual([5, 4]);
      expect((await listAttempts(db, w.id, { limit: 10 })).items).toEqual([]);
      expect(await getEvent(db, w.id, old[0]!.id)).toBeNull();
      expect(await replayEvent(db, w.id, old[0]!.id, now, 600_000)).toBe('not_found');
      // The next first-time delivery is still the oldest pending one, and new events continue the numbering.
      const jobs = await claimDeliveries(db, { workerId: 'w', nowMs: now, leaseMs: LEASE, limit: 10 });
      expect(jobs.map((j) => j.eventId)).toEqual([later[0]!.id]);
      expect((await append(w.id, 1, now)).map((e) => e.seq)).toEqual([6]);
    });

    it('behavior: pause lines of the attempt log go after the delivered bound; a zero-valued policy keeps everything', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await db.execute(
        `INSERT INTO webhook_attempts (id, webhook_id, event_id, attempted_at, latency_ms, status_code, error, response_body, first_attempt, outcome)
         VALUES ('wha_pause', $1, '', $2, 0, NULL, 'paused', NULL, 0, 'paused')`,
        [w.id, T0],
      );
      expect(await pruneFinishedBatch(db, { deliveredMs: null, deadLetterMs: null, nowMs: T0 + 400 * DAY, batchSize: 10 })).toEqual({ events: 0, attempts: 0 });
      expect(await pruneFinishedBatch(db, { ...POLICY, nowMs: T0 + 29 * DAY, batchSize: 10 })).toEqual({ events: 0, attempts: 0 });
      expect(await pruneFinishedBatch(db, { ...POLICY, nowMs: T0 + 31 * DAY, batchSize: 10 })).toEqual({ events: 0, attempts: 1 });
    });

    it('args: a run removes at most batchSize × maxBatchesPerRun events, oldest first', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      const events = await append(w.id, 30, T0);
      const jobs = await claimDeliveries(db, { workerId: 'w', nowMs: T0, leaseMs: LEASE, limit: 1 });
      let job: DeliveryJob | null = jobs[0]!;
      let at = T0;
      while (job) {
        at += 1_000;
        const r = await recordAttempt(db, job, attempt(job, at, 200), succeeded(at), null, { workerId: 'w', nowMs: at, leaseMs: LEASE, limit: 1 });
        job = r.next;
      }
      const clock = createManualClock(T0 + 31 * DAY);
      const pruner = createRetentionPruner({ db, clock, policy: POLICY, logger: silentLogger, batchSize: 4, maxBatchesPerRun: 3 });
      expect(await pruner.runOnce()).toEqual({ events: 12, attempts: 12 });
      const left = (await listEvents(db, w.id, { limit: 100 })).items.map((e) => e.id).reverse();
      expect(left).toEqual(events.slice(12).map((e) => e.id));
      expect((await pruner.runOnce()).events).toBe(12);
      expect((await pruner.runOnce()).events).toBe(6);
    });
  });
}
