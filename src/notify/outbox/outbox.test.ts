import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { notifyTestDatabases, insertTestWebhook } from '../testing/notifyTestDatabases.js';
import { createWebhookRepository } from '../webhooks/webhookRepository.js';
import { appendEvents } from './appendEvents.js';
import { claimDeliveries, nextWakeAt, releaseLeases, type DeliveryJob } from './claimDeliveries.js';
import { recordAttempt, recordAttempts, type NextState } from './recordAttempt.js';
import { getEvent, listAttempts, listEvents, replayEvent, replayFailedSince } from './deliveryLog.js';

const T0 = 1_700_000_000_000;
const LEASE = 10_000;

const sent = (job: DeliveryJob, at: number) => ({ 'Content-Type': 'application/json', 'X-Service-Signature': `sig-${job.eventId}`, 'webhook-id': job.eventId, 'webhook-timestamp': String(at) });
const ok = (job: DeliveryJob, at: number) =>
  ({ id: `wha_${job.eventId}_${at}`, attemptedAt: at, latencyMs: 3, statusCode: 200, error: null, responseBody: 'ok', requestHeaders: sent(job, at) });
const bad = (job: DeliveryJob, at: number, status = 500) =>
  ({ id: `wha_${job.eventId}_${at}`, attemptedAt: at, latencyMs: 3, statusCode: status, error: null, responseBody: 'no', requestHeaders: sent(job, at) });
const succeeded = (at: number): NextState => ({ status: 'succeeded', nextAttemptAt: at, retryDeadlineAt: null });
const retryAt = (at: number, deadline = at + 600_000): NextState => ({ status: 'pending', nextAttemptAt: at, retryDeadlineAt: deadline });

for (const impl of notifyTestDatabases) {
  describe(`outbox (${impl.name})`, () => {
    let db: SqlDatabase;
    let cleanup: () => Promise<void>;
    beforeEach(async () => ({ db, cleanup } = await impl.open()));
    afterEach(async () => cleanup());

    const append = (webhookId: string, n: number, nowMs = T0, tag = '') =>
      db.transaction((tx) => appendEvents(tx, Array.from({ length: n }, (_, i) => ({ webhookId, type: 'ADDRESS_ACTIVITY' as const, event: { n: i, tag } })), { nowMs }));
    const claim = (workerId: string, nowMs: number, limit = 50) => claimDeliveries(db, { workerId, nowMs, leaseMs: LEASE, limit });

    it('default: appends numbered events whose stored body is the exact notification JSON', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      const appended = await append(w.id, 3);
      expect(appended.map((a) => a.seq)).toEqual([1, 2, 3]);
      expect(new Set(appended.map((a) => a.id)).size).toBe(3);
      const e = await getEvent(db, w.id, appended[1]!.id);
      expect(e!.body).toBe(`{"webhookId":"${w.id}","id":"${appended[1]!.id}","createdAt":"2023-11-14T22:13:20.000Z","type":"ADDRESS_ACTIVITY","event":{"n":1,"tag":""}}`);
      expect(e!.status).toBe('pending');
      expect((await append(w.id, 2)).map((a) => a.seq)).toEqual([4, 5]);
    });

    it('behavior: events and the caller\'s cursor commit or roll back together', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await db.execute('CREATE TABLE test_cursor (id TEXT PRIMARY KEY, block BIGINT NOT NULL)');
      await expect(
        db.transaction(async (tx) => {
          await appendEvents(tx, [{ webhookId: w.id, type: 'ADDRESS_ACTIVITY', event: { a: 1 } }], { nowMs: T0 });
          await tx.execute('INSERT INTO test_cursor (id, block) VALUES ($1, $2)', ['c', 7]);
          throw new Error('crash before commit');
        }),
      ).rejects.toThrow('crash before commit');
      expect((await listEvents(db, w.id, { limit: 10 })).items).toEqual([]);
      expect(await db.query('SELECT * FROM test_cursor')).toEqual([]);
      // The counter rolled back too, so seqs stay gap-free.
      expect((await append(w.id, 1)).map((a) => a.seq)).toEqual([1]);
    });

    it('behavior: skips unknown and switched-off webhooks; refuses events that are not JSON', async () => {
      const on = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      const off = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await createWebhookRepository(db).update(off.id, { isActive: false }, T0);
      const appended = await db.transaction((tx) =>
        appendEvents(
          tx,
          [
            { webhookId: 'wh_unknown', type: 'ADDRESS_ACTIVITY', event: {} },
            { webhookId: off.id, type: 'ADDRESS_ACTIVITY', event: {} },
            { webhookId: on.id, type: 'ADDRESS_ACTIVITY', event: {} },
          ],
          { nowMs: T0 },
        ),
      );
      expect(appended.map((a) => a.webhookId)).toEqual([on.id]);
      await expect(db.transaction((tx) => appendEvents(tx, [{ webhookId: on.id, type: 'ADDRESS_ACTIVITY', event: { v: 1n } }], { nowMs: T0 }))).rejects.toThrow(TypeError);
    });

    it('behavior: one first-time delivery per webhook in flight, oldest first; retries do not hold back later events', async () => {
      const a = await insertTestWebhook(db, 'http://127.0.0.1:1/a');
      const b = await insertTestWebhook(db, 'http://127.0.0.1:1/b');
      const ea = await append(a.id, 3);
      const eb = await append(b.id, 2);
      const first = await claim('w1', T0);
      expect(first.map((j) => j.eventId).sort()).toEqual([ea[0]!.id, eb[0]!.id].sort());
      expect(first.every((j) => !j.firstAttempted)).toBe(true);
      // Nothing else may go while both heads are in flight.
      expect(await claim('w2', T0)).toEqual([]);
      const jobA = first.find((j) => j.webhookId === a.id)!;
      // a's first event fails: it becomes a retry, and a's second event is next.
      expect((await recordAttempt(db, jobA, bad(jobA, T0 + 5), retryAt(T0 + 1_000), null)).outcome).toBe('retrying');
      const second = await claim('w2', T0 + 10);
      expect(second.map((j) => j.eventId)).toEqual([ea[1]!.id]);
      // The retry is claimed independently once due, while a's second event is still in flight.
      const retry = await claim('w3', T0 + 1_000);
      expect(retry.map((j) => [j.eventId, j.firstAttempted])).toEqual([[ea[0]!.id, true]]);
    });

    it('behavior: recording a first-time attempt can lease the webhook\'s next event in the same transaction', async () => {
      const repo = createWebhookRepository(db);
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      const events = await append(w.id, 3);
      const [job] = await claim('w', T0);
      const cont = { workerId: 'w', nowMs: T0 + 1, leaseMs: LEASE, limit: 1 };
      const r = await recordAttempt(db, job!, bad(job!, T0 + 1), retryAt(T0 + 500), null, cont);
      expect(r.next!.eventId).toBe(events[1]!.id);
      expect(await claim('other', T0 + 2)).toEqual([]);
      // A retry's result does not chain, and a paused webhook chains nothing.
      await repo.update(w.id, { pausedAt: T0, pausedReason: 'manual' }, T0);
      const r2 = await recordAttempt(db, r.next!, ok(r.next!, T0 + 3), succeeded(T0 + 3), null, { ...cont, nowMs: T0 + 3 });
      expect([r2.outcome, r2.next]).toEqual(['succeeded', null]);
    });

    it('behavior: several results record in one transaction, each chaining its own webhook', async () => {
      const hooks = [await insertTestWebhook(db, 'http://127.0.0.1:1/a'), await insertTestWebhook(db, 'http://127.0.0.1:1/b')];
      const appended = await Promise.all(hooks.map((h) => append(h.id, 2)));
      const jobs = await claim('w', T0);
      const cont = { workerId: 'w', nowMs: T0 + 1, leaseMs: LEASE, limit: 1 };
      const results = await recordAttempts(db, jobs.map((job) => ({ job, attempt: ok(job, T0 + 1), next: succeeded(T0 + 1), autoPauseAfterMs: null, continueWith: cont })));
      expect(results.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
      expect(results.map((r) => r.next!.eventId).sort()).toEqual(appended.map((a) => a[1]!.id).sort());
      expect(results.map((r, i) => r.next!.webhookId === jobs[i]!.webhookId)).toEqual([true, true]);
    });

    it('behavior: a crashed worker\'s lease expires and its late result is only logged', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      const [e] = await append(w.id, 1);
      const [held] = await claim('dead', T0);
      expect(await claim('alive', T0 + LEASE - 1)).toEqual([]);
      const [taken] = await claim('alive', T0 + LEASE);
      expect(taken!.eventId).toBe(e!.id);
      expect(taken!.firstAttempted).toBe(false);
      expect((await recordAttempt(db, held!, ok(held!, T0 + LEASE + 1), succeeded(T0 + LEASE + 1), null)).outcome).toBe('stale');
      expect((await recordAttempt(db, taken!, ok(taken!, T0 + LEASE + 2), succeeded(T0 + LEASE + 2), null)).outcome).toBe('succeeded');
      const log = await listAttempts(db, w.id, { limit: 10 });
      expect(log.items.map((x) => x.outcome)).toEqual(['succeeded', 'stale']);
      expect((await getEvent(db, w.id, e!.id))!.status).toBe('succeeded');
    });

    it('behavior: released leases can be claimed at once', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await append(w.id, 1);
      await claim('w1', T0);
      expect(await releaseLeases(db, 'w1')).toBe(1);
      expect(await claim('w2', T0)).toHaveLength(1);
    });

    it('behavior: concurrent claimers never share a row and keep one head per webhook', async () => {
      const hooks = await Promise.all(Array.from({ length: 6 }, () => insertTestWebhook(db, 'http://127.0.0.1:1/hook')));
      for (const h of hooks) await append(h.id, 4);
      const results = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((id) => claim(id, T0, 3)));
      const all = results.flat();
      expect(new Set(all.map((j) => j.eventId)).size).toBe(all.length);
      expect(all.length).toBe(6);
      expect(new Set(all.map((j) => j.webhookId)).size).toBe(6);
      expect(all.every((j) => j.seq === 1)).toBe(true);
    });

    it('behavior: a paused webhook keeps recording but delivers nothing until resumed, then resumes in order', async () => {
      const repo = createWebhookRepository(db);
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await repo.update(w.id, { pausedAt: T0, pausedReason: 'manual' }, T0);
      const events = await append(w.id, 2);
      expect(events).toHaveLength(2);
      expect(await claim('w1', T0)).toEqual([]);
      expect(await nextWakeAt(db, T0)).toBeNull();
      await repo.update(w.id, { pausedAt: null, pausedReason: null }, T0);
      expect((await claim('w1', T0)).map((j) => j.eventId)).toEqual([events[0]!.id]);
    });

    it('behavior: continuous failure past the limit pauses the webhook; a success clears the streak', async () => {
      const repo = createWebhookRepository(db);
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await append(w.id, 3);
      let [job] = await claim('w', T0);
      expect((await recordAttempt(db, job!, bad(job!, T0), retryAt(T0 + 100), 60_000)).autoPaused).toBe(false);
      expect((await repo.get(w.id))!.failingSince).toBe(T0);
      [job] = await claim('w', T0 + 30_000);
      await recordAttempt(db, job!, ok(job!, T0 + 30_000), succeeded(T0 + 30_000), 60_000);
      expect((await repo.get(w.id))!.failingSince).toBeNull();
      const t1 = T0 + 100_000;
      const jobs = await claim('w', t1);
      for (const j of jobs) await recordAttempt(db, j, bad(j, t1), retryAt(t1 + 100), 60_000);
      const [next] = await claim('w', t1 + 60_000);
      expect((await recordAttempt(db, next!, bad(next!, t1 + 60_000), retryAt(t1 + 60_100), 60_000)).autoPaused).toBe(true);
      const paused = await repo.get(w.id);
      expect([paused!.pausedReason, paused!.pausedAt]).toEqual(['auto', t1 + 60_000]);
      expect(await claim('w', t1 + 1_000_000)).toEqual([]);
    });

    it('behavior: failed events replay one by one or all since a time, keeping their id and bytes', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      const events = await append(w.id, 3, T0);
      const later = await append(w.id, 1, T0 + 50_000);
      for (let i = 0; i < 4; i++) {
        const [job] = await claim('w', T0 + 60_000 + i);
        await recordAttempt(db, job!, bad(job!, T0 + 60_000 + i), { status: 'failed', nextAttemptAt: T0, retryDeadlineAt: T0 }, null);
      }
      expect((await listEvents(db, w.id, { limit: 10, status: 'failed' })).items).toHaveLength(4);
      const before = (await getEvent(db, w.id, events[0]!.id))!.body;
      expect(await replayEvent(db, w.id, events[0]!.id, T0 + 70_000, 600_000)).toBe('replayed');
      expect(await replayEvent(db, w.id, events[0]!.id, T0 + 70_000, 600_000)).toBe('pending');
      expect(await replayEvent(db, w.id, 'whevt_nope', T0 + 70_000, 600_000)).toBe('not_found');
      expect(await replayFailedSince(db, w.id, T0 + 50_000, T0 + 70_000, 600_000)).toBe(1);
      const jobs = await claim('w', T0 + 70_000);
      expect(jobs.map((j) => j.eventId).sort()).toEqual([events[0]!.id, later[0]!.id].sort());
      expect(jobs.every((j) => j.firstAttempted && j.retryDeadlineAt === T0 + 670_000)).toBe(true);
      expect(jobs.find((j) => j.eventId === events[0]!.id)!.body).toBe(before);
    });

    it('behavior: an attempt logged without request headers (before migration 006) lists them as null', async () => {
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await db.execute(
        `INSERT INTO webhook_attempts (id, webhook_id, event_id, attempted_at, latency_ms, status_code, error, response_body, first_attempt, outcome)
         VALUES ('wha_old', $1, 'whevt_old', $2, 5, 200, NULL, 'ok', 1, 'succeeded')`,
        [w.id, T0],
      );
      const [old] = (await listAttempts(db, w.id, { limit: 5 })).items;
      expect(old).toMatchObject({ id: 'wha_old', statusCode: 200, requestHeaders: null });
    });

    it('behavior: the attempt log pages newest first; deleting a webhook removes its outbox', async () => {
      const repo = createWebhookRepository(db);
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await append(w.id, 3);
      for (let i = 0; i < 3; i++) {
        const [job] = await claim('w', T0 + i);
        await recordAttempt(db, job!, ok(job!, T0 + i), succeeded(T0 + i), null);
      }
      const p1 = await listAttempts(db, w.id, { limit: 2 });
      const p2 = await listAttempts(db, w.id, { limit: 2, after: p1.after });
      expect([...p1.items, ...p2.items].map((a) => a.attemptedAt)).toEqual([T0 + 2, T0 + 1, T0]);
      expect(p2.after).toBeNull();
      // Each attempt keeps the headers it was sent with, in sending order.
      const first = p2.items[0]!;
      expect(first.requestHeaders).toEqual({ 'Content-Type': 'application/json', 'X-Service-Signature': `sig-${first.eventId}`, 'webhook-id': first.eventId, 'webhook-timestamp': String(T0) });
      expect(Object.keys(first.requestHeaders!)).toEqual(['Content-Type', 'X-Service-Signature', 'webhook-id', 'webhook-timestamp']);
      expect(await repo.delete(w.id)).toBe(true);
      for (const table of ['webhook_events', 'webhook_deliveries', 'webhook_attempts', 'webhook_addresses']) {
        expect(await db.query(`SELECT * FROM ${table}`)).toEqual([]);
      }
    });
  });
}
