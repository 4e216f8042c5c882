// PostgreSQL dropping every connection of the service mid-run (what a database restart or failover
// does to a client; issue 18). The connections of this test's own pool (a unique application_name)
// are terminated by the server, twice, while events are appended and delivered: the process stays
// up, and every event appended still arrives, first attempts in order. Other users of the shared
// server are untouched. An attempt whose record met the drop keeps its lease until the lease ends
// (attempt timeout + 10 s), then is sent again under the same event id, as after a crash.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase } from '../../store/postgres/postgresDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { TEST_POSTGRES_URL } from '../../store/testing/openTestDatabases.js';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { insertTestWebhook } from '../testing/notifyTestDatabases.js';
import { startTestListener, type TestListener } from '../testing/testListener.js';

const tag = randomBytes(5).toString('hex');
const schema = `t_drop_${tag}`;
const appName = `tracehook_drop_${tag}`;

describe('PostgreSQL drops the connections mid-run', () => {
  let db: SqlDatabase;
  let notifier: Notifier;
  let listener: TestListener;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  beforeAll(async () => {
    await admin.connect();
    const url = new URL(TEST_POSTGRES_URL);
    url.searchParams.set('application_name', appName);
    db = await createPostgresDatabase({ connectionString: url.toString(), schema, maxConnections: 4 });
    await migrate(db);
    listener = await startTestListener(() => 200);
    notifier = createNotifier({ db, retryBaseDelayMs: 20, retryMaxDelayMs: 200, pollIntervalMs: 50, fetchTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await notifier?.stop();
    await listener?.close();
    await db?.close().catch(() => undefined);
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  /** Terminates every server process of this test's pool; returns how many. */
  async function dropConnections(): Promise<number> {
    const rows = await admin.query<{ ok: boolean }>('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [appName]);
    return rows.rows.length;
  }

  async function append(webhookId: string, from: number, count: number): Promise<void> {
    // An append that meets a dropped connection fails as a whole (the follower retries its block); try again.
    for (let tries = 0; ; tries++) {
      try {
        await db.transaction((tx) => notifier.appendEvents(tx, Array.from({ length: count }, (_, i) => ({ webhookId, type: 'ADDRESS_ACTIVITY' as const, event: { n: from + i } }))));
        notifier.wake();
        return;
      } catch (error) {
        if (tries >= 5) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  it('behavior: the process stays up and every appended event arrives, first attempts in order', { timeout: 150_000 }, async () => {
    const webhook = await insertTestWebhook(db, listener.url);
    notifier.start();
    const ns = (rs: TestListener['requests']) => new Set(rs.map((r) => (JSON.parse(r.body) as { event: { n: number } }).event.n));
    await append(webhook.id, 0, 20);
    await listener.waitFor((rs) => ns(rs).size >= 10, 45_000);
    expect(await dropConnections()).toBeGreaterThan(0);
    await append(webhook.id, 20, 20);
    await listener.waitFor((rs) => ns(rs).size >= 40, 45_000);
    expect(await dropConnections()).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300)); // idle pooled clients learn of it now
    await append(webhook.id, 40, 20);
    await listener.waitFor((rs) => ns(rs).size >= 60, 45_000);

    const first: number[] = [];
    for (const n of listener.requests.map((r) => (JSON.parse(r.body) as { event: { n: number } }).event.n)) if (!first.includes(n)) first.push(n);
    expect(first).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });
});
