// Three processes on one PostgreSQL database following an anvil chain (issue 17): `--role all`
// (gateway, worker, the active follower), `--role follower` (standing by) and `--role worker`.
// The active follower is SIGKILLed mid-stream and the standby takes over; the worker is SIGKILLed
// mid-delivery and restarted. An independent listener checks that every event arrived, first
// attempts in order per webhook, each event under one id with the same bytes on every try.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnvilFleet, type AnvilFleet } from '../backends/upstream/testing/anvilFleet.js';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { startTestListener, type ReceivedRequest, type TestListener } from '../notify/testing/testListener.js';
import { createPostgresDatabase } from '../store/postgres/postgresDatabase.js';
import { migrate } from '../store/migrations/migrate.js';
import { insertTestWebhook } from '../notify/testing/notifyTestDatabases.js';
import type { SqlDatabase } from '../store/sql.js';
import { TEST_POSTGRES_URL, postgresReachable } from '../store/testing/openTestDatabases.js';
import { scratchDatabase } from '../store/testing/scratchDatabase.js';

const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const NETWORK = 'CHAIN_31337';


const reachable = await postgresReachable();
if (!reachable) {
  console.warn(`\n!!!!! multi-process PostgreSQL test SKIPPED: no PostgreSQL at ${TEST_POSTGRES_URL} (set TRACEHOOK_TEST_POSTGRES_URL) !!!!!\n`);
}

interface Notification {
  id: string;
  webhookId: string;
  event: { activity: Array<{ blockNum: string; hash: string }> };
}
const parse = (r: ReceivedRequest) => JSON.parse(r.body) as Notification;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!reachable)('multi-process on PostgreSQL (roles all, follower, worker)', () => {
  const scratch = scratchDatabase('tracehook_mp');
  const { url } = scratch;
  const dirs: string[] = [];
  const procs: TracehookProcess[] = [];
  let fleet: AnvilFleet;
  let listener: TestListener;
  let db: SqlDatabase;
  let arrived: (() => void) | undefined;

  const spawnRole = (role: string, extra: string[] = []) => {
    const dataDir = mkdtempSync(join(tmpdir(), `tracehook-mp-${role}-`));
    dirs.push(dataDir);
    const ready = role === 'worker' ? /^tracehook worker/m : role === 'follower' ? /^tracehook follower/m : undefined;
    return spawnTracehook({ dataDir, ready, args: ['--role', role, '--database-url', url, '--upstream', fleet.urls[0]!, '--trace-workers', '0', ...extra] }).then((p) => {
      procs.push(p);
      return p;
    });
  };

  beforeAll(async () => {
    await scratch.create();
    db = await createPostgresDatabase({ connectionString: url, maxConnections: 2 });
    await migrate(db);
    fleet = await startAnvilFleet(1);
    // Replies take a little while, so a kill finds deliveries in flight; every 9th fails once.
    listener = await startTestListener((r) => {
      arrived?.();
      return r.index % 9 === 4 ? 500 : { status: 200, delayMs: 40 };
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await listener?.close();
    await fleet?.close();
    await db?.close();
    await scratch.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  it('behavior: SIGKILLed follower and worker lose nothing; first attempts in order per webhook, one id per event', async () => {
    const webhooks = [await insertTestWebhook(db, listener.url, { network: NETWORK }), await insertTestWebhook(db, listener.url, { network: NETWORK })];
    await db.execute('UPDATE webhook_addresses SET address = $1', [RECIPIENT]);
    const all = await spawnRole('all');
    const [follower, firstWorker] = await Promise.all([spawnRole('follower'), spawnRole('worker')]);
    let worker = firstWorker;
    await until(() => /standing by/.test(follower.logs()), 15_000, 'the standby follower');
    await until(async () => (await db.query('SELECT 1 FROM follower_cursors WHERE network = $1', [NETWORK])).length > 0, 15_000, 'the active follower');

    const mined: bigint[] = [];
    let mining = true;
    const miner = (async () => {
      while (mining) {
        mined.push((await fleet.mine({ txs: 1 })).number);
        await sleep(100);
      }
    })();

    // The active follower (and a worker) dies mid-stream; the standby takes over.
    await until(() => listener.requests.length >= 10, 20_000, 'first deliveries');
    await all.kill('SIGKILL');
    const killedAt = Date.now();
    await until(() => /lease acquired/.test(follower.logs()), 10_000, 'the takeover');
    const takeoverMs = Date.now() - killedAt;

    // The remaining worker dies while a delivery is in flight, and is started again.
    await until(() => listener.requests.length >= 25, 20_000, 'deliveries after the takeover');
    await new Promise<void>((r) => (arrived = r));
    arrived = undefined;
    await worker.kill('SIGKILL');
    worker = await spawnRole('worker');

    await sleep(1500);
    mining = false;
    await miner;
    const last = mined[mined.length - 1]!;
    await until(async () => {
      const [cursor] = await db.query<{ n: string }>('SELECT block_number AS n FROM follower_cursors WHERE network = $1', [NETWORK]);
      return cursor !== undefined && BigInt(cursor.n) >= last;
    }, 15_000, 'the follower at the last block');
    const events = await db.query<{ id: string; webhook_id: string; seq: string; body: string }>('SELECT id, webhook_id, seq, body FROM webhook_events ORDER BY webhook_id, seq');
    await until(() => {
      const ok = new Set(listener.requests.filter((r) => r.status === 200).map((r) => parse(r).id));
      return events.every((e) => ok.has(e.id));
    }, 20_000, 'every event delivered');

    // Nothing lost: each webhook got an event for every block mined after the first one it saw.
    for (const w of webhooks) {
      const mine = events.filter((e) => e.webhook_id === w.id);
      const blocks = mine.flatMap((e) => (JSON.parse(e.body) as Notification).event.activity.map((a) => BigInt(a.blockNum)));
      // None under two ids: no block's transfer is in two events.
      expect(new Set(blocks).size).toBe(blocks.length);
      const first = blocks[0]!;
      expect(blocks).toEqual(mined.filter((n) => n >= first && n <= blocks[blocks.length - 1]!));
      expect(blocks[blocks.length - 1]).toBe(mined[mined.length - 1]);
      // First attempts in order: the ids in order of their first arrival are the events in seq order.
      const firstSeen = [...new Set(listener.requests.map(parse).filter((n) => n.webhookId === w.id).map((n) => n.id))];
      expect(firstSeen).toEqual(mine.map((e) => e.id));
    }
    // Same bytes on every try of an event.
    const bodies = new Map<string, string>();
    for (const r of listener.requests) {
      const id = parse(r).id;
      expect(bodies.get(id) ?? r.body).toBe(r.body);
      bodies.set(id, r.body);
    }
    expect(takeoverMs).toBeLessThan(5_000);
    console.info(`multi-process: ${events.length} events, ${listener.requests.length} requests, takeover ${takeoverMs} ms`);
  }, 120_000);
});
