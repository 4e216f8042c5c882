import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { notifyTestDatabases, insertTestWebhook } from '../testing/notifyTestDatabases.js';
import { appendEvents } from '../outbox/appendEvents.js';
import { claimDeliveries, nextWakeAt } from '../outbox/claimDeliveries.js';
import { recordAttempt } from '../outbox/recordAttempt.js';
import { createSteadyClock } from '../steadyClock.js';
import { createWallStepFollower } from './wallStepFollower.js';

const HOUR = 3_600_000;

describe('steady clock', () => {
  it('behavior: a step of the wall clock moves nothing until followed, and is reported beyond the tolerance only', () => {
    let wall = 1_700_000_000_000;
    let mono = 0;
    const clock = createSteadyClock({ wallNow: () => wall, monotonicNow: () => mono });
    mono += 500;
    wall += 500;
    expect(clock.now()).toBe(1_700_000_000_500);
    wall += 900; // within the 1 s tolerance
    expect(clock.wallStepMs()).toBe(0);
    wall -= 900 + HOUR;
    expect(clock.now()).toBe(1_700_000_000_500);
    expect(clock.wallStepMs()).toBe(-HOUR);
    clock.shift(-HOUR);
    expect(clock.now()).toBe(wall);
    expect(clock.wallStepMs()).toBe(0);
  });
});

describe('steady clock on a busy machine', () => {
  it('behavior: a look interrupted for longer than 50 ms between its reads gives no verdict rather than a false step', () => {
    let mono = 0;
    let wall = 1_700_000_000_000;
    const clock = createSteadyClock({
      wallNow: () => (wall += 5_000),
      monotonicNow: () => (mono += 1_000),
    });
    expect(clock.wallStepMs()).toBe(0);
  });
});

const sqlite = notifyTestDatabases.find((d) => d.name === 'sqlite')!;
describe('wall-step follower (sqlite)', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ db, cleanup } = await sqlite.open()));
  afterEach(async () => cleanup());

  for (const stepMs of [HOUR, -HOUR]) {
    it(`behavior: a ${stepMs > 0 ? 'forward' : 'backward'} step moves retries, deadlines and leases with the clock, so each keeps its distance`, async () => {
      let wall = 1_700_000_000_000;
      let mono = 0;
      const clock = createSteadyClock({ wallNow: () => wall, monotonicNow: () => mono });
      const follower = createWallStepFollower(db, clock, { debug() {}, info() {}, warn() {}, error() {} });
      const w = await insertTestWebhook(db, 'http://127.0.0.1:1/hook');
      await db.transaction((tx) => appendEvents(tx, [0, 1].map((n) => ({ webhookId: w.id, type: 'ADDRESS_ACTIVITY' as const, event: { n } })), { nowMs: clock.now() }));
      // Event 1 failed: retry in 30 s, window ends in 10 min. Event 2 is leased for 20 s.
      const [first] = await claimDeliveries(db, { workerId: 'a', nowMs: clock.now(), leaseMs: 20_000, limit: 1 });
      const t = clock.now();
      await recordAttempt(db, first!, { id: 'wha_1', attemptedAt: t, latencyMs: 1, statusCode: 500, error: null, responseBody: null, requestHeaders: null }, { status: 'pending', nextAttemptAt: t + 30_000, retryDeadlineAt: t + 600_000 }, null);
      const [second] = await claimDeliveries(db, { workerId: 'a', nowMs: clock.now(), leaseMs: 20_000, limit: 1 });
      expect(second!.seq).toBe(2);

      wall += stepMs;
      expect(follower.pending()).toBe(stepMs);
      expect(await follower.follow()).toBe(stepMs);
      expect(follower.pending()).toBe(0);
      expect(clock.now()).toBe(wall);
      // The retry is still 30 s away, its deadline 10 min; the lease still 20 s.
      expect(await nextWakeAt(db, clock.now())).toBe(clock.now() + 20_000);
      mono += 20_000;
      wall += 20_000;
      expect(await claimDeliveries(db, { workerId: 'b', nowMs: clock.now() - 1, leaseMs: 20_000, limit: 5 })).toEqual([]);
      mono += 10_000;
      wall += 10_000;
      // 30 s on: the lease has passed and the retry is due, 9.5 min before its deadline.
      const due = await claimDeliveries(db, { workerId: 'b', nowMs: clock.now(), leaseMs: 20_000, limit: 5 });
      expect(due.map((j) => [j.seq, j.retryDeadlineAt === null ? null : j.retryDeadlineAt - clock.now()])).toEqual([
        [2, null],
        [1, 570_000],
      ]);
    });
  }
});
