// A real PostgreSQL restart mid-run (issues 17 and 18): a private cluster (never the shared server)
// is stopped twice while `--role all` and `--role worker` follow an anvil chain with an
// ADDRESS_ACTIVITY webhook, once `-m fast` (clients told, clean shutdown) and once `-m immediate`
// (no shutdown checkpoint, crash recovery at the next start), and started again each time. Both
// processes stay up and reconnect; /readyz is 503 while the server is down and 200 after; an
// independent listener gets every event, first attempts in order, one id per block's transfer; the
// follower takes its lease again after each restart and the worker process delivers after each.
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
import { postgresBinDir, startPrivatePostgres, type PrivatePostgres } from '../store/testing/privatePostgres.js';

const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const NETWORK = 'CHAIN_31337';

const binDir = postgresBinDir();
if (!binDir) {
  console.warn('\n!!!!! PostgreSQL restart test SKIPPED: no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql !!!!!\n');
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
  while (!(await Promise.resolve().then(check).catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!binDir)('a real PostgreSQL restart mid-run (roles all and worker)', () => {
  const dirs: string[] = [];
  const procs: TracehookProcess[] = [];
  let server: PrivatePostgres;
  let fleet: AnvilFleet;
  let listener: TestListener;
  // The test's loops (miner, /readyz sampler), stopped in afterAll too when the test fails midway.
  let loops = true;

  const spawnRole = async (role: 'all' | 'worker') => {
    const dataDir = mkdtempSync(join(tmpdir(), `tracehook-pgrestart-${role}-`));
    dirs.push(dataDir);
    const p = await spawnTracehook({
      dataDir,
      ready: role === 'worker' ? /^tracehook worker/m : undefined,
      // The worker logs each delivery (debug), to show it delivered after each restart.
      args: ['--role', role, '--database-url', server.url, '--upstream', fleet.urls[0]!, '--trace-workers', '0', '--webhook-retry-window-sec', '600', ...(role === 'worker' ? ['--log-level', 'debug'] : [])],
    });
    procs.push(p);
    return p;
  };

  beforeAll(async () => {
    server = await startPrivatePostgres();
    fleet = await startAnvilFleet(1);
    // Every 7th answer fails once, so retries are in flight across the restarts too.
    listener = await startTestListener((r) => (r.index % 7 === 3 ? 500 : { status: 200, delayMs: 20 }));
  }, 60_000);

  afterAll(async () => {
    loops = false;
    await sleep(300);
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await listener?.close();
    await fleet?.close();
    await server?.destroy();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  it('behavior: both processes reconnect; not ready while down; every event arrives once, in order', async () => {
    const setup = await createPostgresDatabase({ connectionString: server.url, maxConnections: 1 });
    await migrate(setup);
    const webhook = await insertTestWebhook(setup, listener.url, { network: NETWORK });
    await setup.execute('UPDATE webhook_addresses SET address = $1', [RECIPIENT]);
    await setup.close();

    const all = await spawnRole('all');
    const worker = await spawnRole('worker');

    // /readyz of the gateway, sampled all along.
    const ready: { at: number; status: number }[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling && loops) {
        const status = await fetch(`${all.baseUrl}/readyz`, { signal: AbortSignal.timeout(3_000) }).then((r) => r.status, () => 0);
        ready.push({ at: Date.now(), status });
        await sleep(100);
      }
    })();

    const mined: bigint[] = [];
    let mining = true;
    const miner = (async () => {
      while (mining && loops) {
        mined.push((await fleet.mine({ txs: 1 })).number);
        await sleep(150);
      }
    })();

    const logLines = (p: TracehookProcess) => p.logs().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { time: number; msg: string; network?: string; generation?: string });
    // Both processes run a delivery worker and claim from the same outbox, so which one delivers
    // first after a restart is a race: the worker process's own delivery is waited for.
    const workerDeliveredSince = (at: number) => logLines(worker).some((l) => l.msg === 'webhook delivered' && l.time > at);
    const outages: { mode: 'fast' | 'immediate'; from: number; to: number; recoveredMs: number }[] = [];
    for (const mode of ['fast', 'immediate'] as const) {
      const before = listener.requests.length;
      await until(() => listener.requests.length >= before + 8, 30_000, `deliveries before the ${mode} stop`);
      const from = Date.now();
      await server.stop(mode);
      await sleep(2_500);
      // Not ready while the database is down (sampled after the stop, with time for a check to fail).
      await until(() => ready.some((s) => s.at > from + 500 && s.status === 503), 5_000, `/readyz 503 while the database is down (${mode})`);
      await server.start();
      const to = Date.now();
      await until(() => ready.some((s) => s.at > to && s.status === 200), 20_000, `/readyz 200 after the ${mode} restart`);
      const afterStart = listener.requests.length;
      await until(() => listener.requests.length > afterStart + 3, 30_000, `deliveries after the ${mode} restart`);
      await until(() => workerDeliveredSince(to), 30_000, `a delivery by the worker process after the ${mode} restart`);
      outages.push({ mode, from, to, recoveredMs: ready.find((s) => s.at > to && s.status === 200)!.at - to });
    }

    await sleep(1_000);
    mining = false;
    await miner;
    const last = mined[mined.length - 1]!;
    const db = await createPostgresDatabase({ connectionString: server.url, maxConnections: 1 });
    try {
      await until(async () => {
        const [cursor] = await db.query<{ n: string }>('SELECT block_number AS n FROM follower_cursors WHERE network = $1', [NETWORK]);
        return cursor !== undefined && BigInt(cursor.n) >= last;
      }, 30_000, 'the follower at the last block');
      const events = await db.query<{ id: string; seq: string; body: string }>('SELECT id, seq, body FROM webhook_events WHERE webhook_id = $1 ORDER BY seq', [webhook.id]);
      await until(() => {
        const ok = new Set(listener.requests.filter((r) => r.status === 200).map((r) => parse(r).id));
        return events.every((e) => ok.has(e.id));
      }, 30_000, 'every event delivered');
      sampling = false;
      await sampler;

      // Nothing lost, nothing twice: one event per mined block from the first one seen to the last.
      const blocks = events.flatMap((e) => (JSON.parse(e.body) as Notification).event.activity.map((a) => BigInt(a.blockNum)));
      expect(new Set(blocks).size).toBe(blocks.length);
      expect(blocks).toEqual(mined.filter((n) => n >= blocks[0]! && n <= last));
      // No block's transfer arrived under two ids.
      const idsByTx = new Map<string, Set<string>>();
      for (const n of listener.requests.map(parse)) for (const a of n.event.activity) idsByTx.set(a.hash, (idsByTx.get(a.hash) ?? new Set()).add(n.id));
      expect([...idsByTx.values()].filter((ids) => ids.size > 1)).toEqual([]);
      // First attempts in order.
      const firstSeen = [...new Set(listener.requests.map(parse).map((n) => n.id))];
      expect(firstSeen).toEqual(events.map((e) => e.id));
      // Same bytes on every try.
      const bodies = new Map<string, string>();
      for (const r of listener.requests) {
        const id = parse(r).id;
        expect(bodies.get(id) ?? r.body).toBe(r.body);
        bodies.set(id, r.body);
      }
      // Each process came back: the follower took its lease again after each restart (generations
      // 2 and 3), and the worker process delivered after each restart.
      const leases = logLines(all).filter((l) => l.msg.startsWith('lease acquired') && l.network === NETWORK);
      expect(leases.map((l) => l.generation)).toEqual(['1', '2', '3']);
      // Reconnection backs off (pool checkouts, claims, the lease and the wake-up channels): two
      // outages of a few seconds give tens of warnings per process, where a tight loop gives thousands.
      const complaints = (p: TracehookProcess) => p.logs().split('\n').filter((l) => /"level":(40|50|60)/.test(l)).length;
      expect(complaints(all)).toBeLessThan(200);
      expect(complaints(worker)).toBeLessThan(200);
      for (const o of outages) expect(workerDeliveredSince(o.to), `the worker delivered after the ${o.mode} restart`).toBe(true);
      // No process crashed.
      expect(all.child.exitCode).toBeNull();
      expect(worker.child.exitCode).toBeNull();
      console.info(
        `postgres restart: ${events.length} events over ${mined.length} blocks, ${listener.requests.length} requests; ` +
          outages.map((o) => `${o.mode}: down ${o.to - o.from} ms, ready again ${o.recoveredMs} ms after the start`).join('; ') +
          `; warnings and errors logged: all ${complaints(all)}, worker ${complaints(worker)}`,
      );
    } finally {
      sampling = false;
      await sampler;
      await db.close();
    }
  }, 120_000);
});
