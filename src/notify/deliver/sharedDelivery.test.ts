// Delivery by several workers sharing one PostgreSQL store (separate pools, as separate processes
// have): per-webhook order of first attempts, one id per event with the same bytes on every try,
// LISTEN/NOTIFY wake-ups, and the short renewed lease that returns a dead worker's delivery.
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SqlDatabase } from '../../store/sql.js';
import { createPostgresDatabase } from '../../store/postgres/postgresDatabase.js';
import { createNotifyChannel, type NotifyChannel } from '../../store/postgres/notifyChannel.js';
import { migrate } from '../../store/migrations/migrate.js';
import { TEST_POSTGRES_URL } from '../../store/testing/openTestDatabases.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { insertTestWebhook } from '../testing/notifyTestDatabases.js';
import { startTestListener, type ReceivedRequest, type TestListener } from '../testing/testListener.js';
import type { WebhookRecord } from '../webhooks/webhookTypes.js';

const quiet = { warn: () => undefined };
const idOf = (r: ReceivedRequest) => (JSON.parse(r.body) as { id: string }).id;

describe('delivery across workers (postgres)', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const dbs: SqlDatabase[] = [];
  const notifiers: Notifier[] = [];
  const channels: NotifyChannel[] = [];
  let listener: TestListener | undefined;

  const open = async () => {
    const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema, maxConnections: 4 });
    dbs.push(db);
    await migrate(db);
    return db;
  };
  const worker = async (db: SqlDatabase, start = true) => {
    const wakeChannel = await createNotifyChannel({ connectionString: TEST_POSTGRES_URL, channel: 'tracehook_deliveries', schema, logger: quiet });
    channels.push(wakeChannel);
    // A long poll interval: wake-ups must come from NOTIFY for the test to finish in time.
    const n = createNotifier({ db, wakeChannel, pollIntervalMs: 60_000, fetchTimeoutMs: 10_000, retryBaseDelayMs: 20, retryMaxDelayMs: 50, concurrency: 8 });
    notifiers.push(n);
    if (start) n.start();
    return n;
  };
  const append = (db: SqlDatabase, n: Notifier, ws: readonly WebhookRecord[], count: number) =>
    db.transaction(async (tx) => {
      const out = [];
      for (const w of ws) out.push(...(await n.appendEvents(tx, Array.from({ length: count }, (_, i) => ({ webhookId: w.id, type: 'ADDRESS_ACTIVITY' as const, event: { i } })))));
      return out;
    });

  afterEach(async () => {
    await Promise.all(notifiers.splice(0).map((n) => n.stop().catch(() => undefined)));
    await Promise.all(channels.splice(0).map((c) => c.close()));
    await Promise.all(dbs.splice(0).map((db) => db.close().catch(() => undefined)));
    await listener?.close();
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('behavior: three workers deliver every event once per id, first attempts in order per webhook, woken by NOTIFY', async () => {
    // Every 7th request fails once, so retries run beside first attempts.
    listener = await startTestListener((r) => (r.index % 7 === 3 ? 500 : { status: 200, delayMs: r.index % 3 }));
    const dbA = await open();
    const webhooks = [];
    for (let i = 0; i < 4; i++) webhooks.push(await insertTestWebhook(dbA, listener.url));
    const [a] = [await worker(dbA), await worker(await open()), await worker(await open())];
    const appended = [...(await append(dbA, a!, webhooks, 10)), ...(await append(dbA, a!, webhooks, 10))];
    a!.wake();
    await listener.waitFor((rs) => new Set(rs.filter((r) => r.status === 200).map(idOf)).size === appended.length, 20_000);
    const bodies = new Map<string, string>();
    for (const r of listener.requests) {
      const id = idOf(r);
      expect(bodies.get(id) ?? r.body).toBe(r.body);
      bodies.set(id, r.body);
    }
    expect([...bodies.keys()].sort()).toEqual(appended.map((e) => e.id).sort());
    for (const w of webhooks) {
      const expected = appended.filter((e) => e.webhookId === w.id).map((e) => e.id);
      const firstSeen = [...new Set(listener.requests.map(idOf).filter((id) => expected.includes(id)))];
      expect(firstSeen).toEqual(expected);
    }
  });

  it('behavior: a worker that dies mid-delivery loses its lease within about 3 s and another worker delivers the event', async () => {
    let hang = true;
    listener = await startTestListener(() => (hang ? { status: 200, delayMs: 6_000 } : 200));
    const dbDead = await open();
    const w = await insertTestWebhook(dbDead, listener.url);
    const dying = await worker(dbDead);
    const [event] = await append(dbDead, dying, [w], 1);
    dying.wake();
    await listener.waitFor((rs) => rs.length === 1);
    // The worker's connections go away (as when its process is killed): no more lease renewals.
    const diedAt = Date.now();
    await dbDead.close();
    hang = false;
    const other = await worker(await open(), false);
    other.start();
    await listener.waitFor((rs) => rs.filter((r) => idOf(r) === event!.id).length === 2, 8_000);
    const tookMs = Date.now() - diedAt;
    expect(tookMs).toBeGreaterThan(1_000);
    expect(tookMs).toBeLessThan(5_000);
    expect(listener.requests[1]!.body).toBe(listener.requests[0]!.body);
  });
});
