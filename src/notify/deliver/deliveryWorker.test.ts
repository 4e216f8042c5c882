import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createManualClock } from '../clock.js';
import { createNotifier, type Notifier, type NotifierOptions } from '../createNotifier.js';
import { insertTestWebhook, notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { startTestListener, type ReceivedRequest, type TestListener } from '../testing/testListener.js';
import { createWebhookRepository } from '../webhooks/webhookRepository.js';
import type { WebhookRecord } from '../webhooks/webhookTypes.js';
import { getEvent, listAttempts, listEvents } from '../outbox/deliveryLog.js';

// Independent verification with node:crypto only (not the SDK under test).
function hmacHex(raw: Buffer, key: string): string {
  return createHmac('sha256', key).update(raw).digest('hex');
}
function verifiesWith(req: ReceivedRequest, key: string): boolean {
  const expected = Buffer.from(hmacHex(req.raw, key));
  return String(req.headers['x-service-signature']).split(',').some((s) => {
    const got = Buffer.from(s);
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
function standardSignatureOk(req: ReceivedRequest, key: string): boolean {
  const secret = Buffer.from(key.slice('whsec_'.length), 'base64');
  const signed = `${req.headers['webhook-id']}.${req.headers['webhook-timestamp']}.${req.raw.toString('utf8')}`;
  const expected = `v1,${createHmac('sha256', secret).update(signed).digest('base64')}`;
  return String(req.headers['webhook-signature']).split(' ').includes(expected);
}
const idOf = (r: ReceivedRequest) => (JSON.parse(r.body) as { id: string }).id;

/** Ids in order of their first arrival. */
function firstArrivals(requests: ReceivedRequest[]): string[] {
  const seen = new Set<string>();
  for (const r of requests) seen.add(idOf(r));
  return [...seen];
}

describe('delivery worker over real HTTP (sqlite)', () => {
  const impl = notifyTestDatabases.find((d) => d.name === 'sqlite')!;
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier | undefined;
  const listeners: TestListener[] = [];
  beforeEach(async () => ({ db, cleanup } = await impl.open()));
  afterEach(async () => {
    await notifier?.stop();
    notifier = undefined;
    await Promise.all(listeners.splice(0).map((l) => l.close()));
    await cleanup();
  });

  const listen = async (respond?: Parameters<typeof startTestListener>[0]) => {
    const l = await startTestListener(respond);
    listeners.push(l);
    return l;
  };
  const make = (options: Partial<NotifierOptions> = {}) => {
    notifier = createNotifier({ db, retryBaseDelayMs: 20, retryMaxDelayMs: 100, pollIntervalMs: 50, fetchTimeoutMs: 2_000, ...options });
    return notifier;
  };
  const append = (n: Notifier, w: WebhookRecord, count: number, from = 0) =>
    db.transaction((tx) => n.appendEvents(tx, Array.from({ length: count }, (_, i) => ({ webhookId: w.id, type: 'ADDRESS_ACTIVITY' as const, event: { n: from + i } }))));

  it('behavior: a listener failing with 500 then answering 200 receives every event, first attempts in order, signed, with stable ids', async () => {
    const listener = await listen((r) => (r.index < 6 ? 500 : 200));
    const w = await insertTestWebhook(db, listener.url);
    const n = make();
    n.start();
    const ids: string[] = [];
    for (let batch = 0; batch < 3; batch++) {
      ids.push(...(await append(n, w, 10, batch * 10)).map((e) => e.id));
      n.wake();
    }
    await listener.waitFor((rs) => new Set(rs.filter((r) => r.status === 200).map(idOf)).size === ids.length);
    expect(firstArrivals(listener.requests)).toEqual(ids);
    for (const r of listener.requests) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(verifiesWith(r, w.signingKey)).toBe(true);
      expect(standardSignatureOk(r, w.signingKey)).toBe(true);
      expect(r.headers['webhook-id']).toBe(idOf(r));
    }
    // Retries repeat the stored bytes exactly.
    const byId = new Map<string, string>();
    for (const r of listener.requests) {
      if (byId.has(idOf(r))) expect(r.body).toBe(byId.get(idOf(r)));
      byId.set(idOf(r), r.body);
      const body = JSON.parse(r.body) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['webhookId', 'id', 'createdAt', 'type', 'event']);
      expect(new Date(body.createdAt as string).toISOString()).toBe(body.createdAt);
    }
    expect(listener.requests.filter((r) => r.status === 500)).toHaveLength(6);
  });

  it('behavior: back-off with jitter, Retry-After and the retry window on a manual clock; then failed and replayable', async () => {
    const clock = createManualClock();
    const listener = await listen((r) => (r.index === 1 ? { status: 429, headers: { 'Retry-After': '30' } } : 503));
    const w = await insertTestWebhook(db, listener.url);
    const n = make({ clock, random: () => 0, retryBaseDelayMs: 1_000, retryMaxDelayMs: 8_000, retryWindowMs: 60_000 });
    const [event] = await append(n, w, 1);
    const t0 = clock.now();
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const due = (await listEvents(db, w.id, { limit: 1 })).items[0]!;
      if (due.status !== 'pending') break;
      clock.set(Math.max(clock.now(), due.nextAttemptAt!));
      times.push(clock.now() - t0);
      expect(await n.runOnce()).toBe(1);
    }
    // 500 ms (jitter floor of 1 s), Retry-After 30 s, then 2 s, 4 s, 4 s … capped, last one on the deadline.
    expect(times).toEqual([0, 500, 30_500, 32_500, 36_500, 40_500, 44_500, 48_500, 52_500, 56_500, 60_000]);
    const final = await getEvent(db, w.id, event!.id);
    expect([final!.status, final!.attempts, final!.lastStatusCode]).toEqual(['failed', 11, 503]);
    expect(await n.runOnce()).toBe(0);
    const log = await listAttempts(db, w.id, { limit: 100 });
    expect(log.items.map((a) => a.outcome)).toEqual(['failed', ...Array(10).fill('retrying')]);
    expect(log.items.at(-1)!.firstAttempt).toBe(true);
  });

  it('behavior: redirects are not followed, slow listeners time out, long responses are cut', async () => {
    const target = await listen(() => 200);
    const redirecting = await listen(() => ({ status: 302, headers: { Location: target.url } }));
    const slow = await listen(() => ({ status: 200, delayMs: 1_500 }));
    const chatty = await listen(() => ({ status: 500, body: 'x'.repeat(1_000_000) }));
    const hooks = [await insertTestWebhook(db, redirecting.url), await insertTestWebhook(db, slow.url), await insertTestWebhook(db, chatty.url)];
    const n = make({ fetchTimeoutMs: 300, storedResponseBytes: 100, maxResponseBytes: 10_000 });
    for (const h of hooks) await append(n, h, 1);
    expect(await n.runOnce()).toBe(3);
    const [redirect, timeout, long] = await Promise.all(hooks.map(async (h) => (await listAttempts(db, h.id, { limit: 1 })).items[0]!));
    expect([redirect!.statusCode, redirect!.outcome]).toEqual([302, 'retrying']);
    expect(target.requests).toHaveLength(0);
    expect([timeout!.statusCode, timeout!.error]).toEqual([null, 'timed out after 300 ms']);
    expect([long!.statusCode, long!.responseBody]).toEqual([500, 'x'.repeat(100)]);
  });

  it('args: signature aliases repeat the signature under the hosted provider\'s header name', async () => {
    const listener = await listen(() => 200);
    const w = await insertTestWebhook(db, listener.url);
    const n = make({ signatureAliases: ['X-Alchemy-Signature'] });
    await append(n, w, 1);
    await n.runOnce();
    const [r] = listener.requests;
    expect(r!.headers['x-alchemy-signature']).toBe(hmacHex(r!.raw, w.signingKey));
    expect(r!.headers['x-alchemy-signature']).toBe(r!.headers['x-service-signature']);
  });

  it('behavior: during a key rotation grace period both keys sign; afterwards only the new one', async () => {
    const clock = createManualClock();
    const listener = await listen(() => 200);
    const w = await insertTestWebhook(db, listener.url);
    const repo = createWebhookRepository(db);
    const rotated = await repo.rotateSigningKey(w.id, 'whsec_bmV3LWtleS1uZXcta2V5LW5ldy1rZXk=', clock.now() + 1_000, clock.now());
    const n = make({ clock });
    await append(n, w, 1);
    await n.runOnce();
    clock.advance(1_000);
    await append(n, w, 1);
    await n.runOnce();
    const [during, after] = listener.requests;
    expect(verifiesWith(during!, w.signingKey) && verifiesWith(during!, rotated!.signingKey)).toBe(true);
    expect(standardSignatureOk(during!, w.signingKey) && standardSignatureOk(during!, rotated!.signingKey)).toBe(true);
    expect(String(during!.headers['x-service-signature']).split(',')[0]).toBe(hmacHex(during!.raw, rotated!.signingKey));
    expect([verifiesWith(after!, w.signingKey), verifiesWith(after!, rotated!.signingKey)]).toEqual([false, true]);
  });

  it('behavior: a webhook failing continuously is paused and, re-enabled, resumes where it stopped', async () => {
    let healthy = false;
    const listener = await listen(() => (healthy ? 200 : 500));
    const w = await insertTestWebhook(db, listener.url);
    const n = make({ autoPauseAfterMs: 300, retryBaseDelayMs: 50, retryMaxDelayMs: 50 });
    n.start();
    const first = await append(n, w, 3);
    n.wake();
    const repo = createWebhookRepository(db);
    for (let i = 0; i < 100 && (await repo.get(w.id))!.pausedAt === null; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await repo.get(w.id))!.pausedReason).toBe('auto');
    const countWhilePaused = listener.requests.length;
    const more = await append(n, w, 3, 3);
    n.wake();
    await new Promise((r) => setTimeout(r, 300));
    expect(listener.requests.length).toBe(countWhilePaused);
    healthy = true;
    await repo.update(w.id, { pausedAt: null, pausedReason: null, failingSince: null }, Date.now());
    n.wake();
    const all = [...first, ...more].map((e) => e.id);
    await listener.waitFor((rs) => new Set(rs.filter((r) => r.status === 200).map(idOf)).size === all.length);
    expect(firstArrivals(listener.requests)).toEqual(all);
  });

  it('error: in production mode a name resolving to loopback is refused at connection time', async () => {
    const listener = await listen(() => 200);
    const w = await insertTestWebhook(db, `http://localhost:${listener.port}/hook`);
    const literal = await insertTestWebhook(db, `http://[::ffff:127.0.0.1]:${listener.port}/hook`);
    const n = make({ allowLoopbackUrls: false });
    await append(n, w, 1);
    await append(n, literal, 1);
    await n.runOnce();
    const [byName] = (await listAttempts(db, w.id, { limit: 1 })).items;
    const [byLiteral] = (await listAttempts(db, literal.id, { limit: 1 })).items;
    expect(byName!.error).toMatch(/^refused: host localhost is a loopback address/);
    expect(byLiteral!.error).toMatch(/^refused: host ::ffff:7f00:1 is a loopback address/);
    expect(listener.requests).toHaveLength(0);
  });

  it('behavior: stop() lets the attempt in flight finish and leaves nothing leased', async () => {
    const listener = await listen(() => ({ status: 200, delayMs: 200 }));
    const w = await insertTestWebhook(db, listener.url);
    const n = make();
    await append(n, w, 1);
    n.start();
    await listener.waitFor((rs) => rs.length === 1);
    await n.stop();
    notifier = undefined;
    expect((await listEvents(db, w.id, { limit: 1 })).items[0]!.status).toBe('succeeded');
    expect(await db.query('SELECT event_id FROM webhook_deliveries WHERE lease_owner IS NOT NULL')).toEqual([]);
  });

  it('behavior: a delivery falling due while a slow claim runs is not slept past (the next wake is searched from the claim\'s time)', async () => {
    const listener = await listen();
    const w = await insertTestWebhook(db, listener.url);
    const clock = createManualClock();
    const start = clock.now();
    // Every transaction takes 100 ms of this clock (a loaded store); the event falls due 30 ms in.
    const slow: SqlDatabase = { ...db, transaction: async (fn) => { const r = await db.transaction(fn); clock.advance(100); return r; } };
    notifier = createNotifier({ db: slow, clock, pollIntervalMs: 60_000, retryBaseDelayMs: 20, retryMaxDelayMs: 100, fetchTimeoutMs: 2_000 });
    clock.set(start + 30);
    await append(notifier, w, 1);
    clock.set(start);
    notifier.start();
    // Without the fix the worker looks for the next due time from start + 100, finds none, and sleeps the 60 s poll.
    await listener.waitFor((rs) => rs.length === 1, 3_000);
  });

  it('behavior: a next-wake search that answers late does not replace the timer a newer one set', async () => {
    const listener = await listen();
    const w = await insertTestWebhook(db, listener.url);
    let skewMs = 0;
    const clock = { now: () => Date.now() + skewMs };
    // The first search for the next wake-up (idle, nothing scheduled) answers only when released.
    let searches = 0;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let firstHeld!: () => void;
    const held = new Promise<void>((r) => (firstHeld = r));
    let secondDone!: () => void;
    const secondSearched = new Promise<void>((r) => (secondDone = r));
    const isSearch = (sql: string) => sql.includes('SELECT MIN(t)');
    const gated: SqlDatabase = {
      ...db,
      query: async (sql, params) => {
        if (!isSearch(sql)) return db.query(sql, params);
        const n = ++searches;
        const rows = await db.query(sql, params);
        if (n === 1) {
          firstHeld();
          await released;
        } else if (n === 2) setImmediate(secondDone);
        return rows as never;
      },
    };
    notifier = createNotifier({ db: gated, clock, pollIntervalMs: 60_000, fetchTimeoutMs: 2_000 });
    notifier.start();
    await held;
    skewMs = 100;
    await append(notifier, w, 1);
    skewMs = 0;
    notifier.wake();
    await secondSearched;
    release();
    // Without the fix the first search's answer (nothing scheduled) sets a 60 s timer over the 100 ms one.
    await listener.waitFor((rs) => rs.length === 1, 3_000);
  });
});

describe('delivery worker over real HTTP (postgres)', () => {
  it('behavior: two workers share one outbox without duplicate first attempts or reordering', async () => {
    const { db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'postgres')!.open();
    const listener = await startTestListener(() => 200);
    const hooks = [await insertTestWebhook(db, listener.url), await insertTestWebhook(db, listener.url)];
    const workers = [1, 2].map((i) => createNotifier({ db, pollIntervalMs: 20, workerId: `w${i}`, concurrency: 4 }));
    try {
      const expected = new Map<string, string[]>();
      for (const h of hooks) {
        const events = await db.transaction((tx) => workers[0]!.appendEvents(tx, Array.from({ length: 15 }, (_, i) => ({ webhookId: h.id, type: 'ADDRESS_ACTIVITY' as const, event: { i } }))));
        expected.set(h.id, events.map((e) => e.id));
      }
      workers.forEach((w) => w.start());
      await listener.waitFor((rs) => rs.length >= 30);
      await new Promise((r) => setTimeout(r, 100));
      for (const h of hooks) {
        const arrived = listener.requests.map((r) => JSON.parse(r.body) as { webhookId: string; id: string }).filter((b) => b.webhookId === h.id).map((b) => b.id);
        expect(arrived).toEqual(expected.get(h.id));
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await listener.close();
      await cleanup();
    }
  });
});
