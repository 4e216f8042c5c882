// Deliveries per second with 1, 2 and 4 delivery-worker processes sharing one PostgreSQL store
// (issue 17): a burst of events over many webhooks is appended in one transaction, K worker
// processes (this file with --worker) are started, and the time until a local listener has answered
// 200 to every event is measured. A fresh database per run; the listener runs in this process.
//
//   npx tsx bench/sharedDelivery.bench.ts [--events 2000] [--webhooks 50] [--workers 1,2,4]
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPostgresDatabase } from '../src/store/postgres/postgresDatabase.js';
import { createNotifyChannel } from '../src/store/postgres/notifyChannel.js';
import { migrate } from '../src/store/migrations/migrate.js';
import { createNotifier } from '../src/notify/createNotifier.js';
import { insertTestWebhook } from '../src/notify/testing/notifyTestDatabases.js';
import { TEST_POSTGRES_URL } from '../src/store/testing/openTestDatabases.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

async function runWorker(url: string): Promise<void> {
  const db = await createPostgresDatabase({ connectionString: url, maxConnections: 8 });
  const wakeChannel = await createNotifyChannel({ connectionString: url, channel: 'tracehook_deliveries', logger: console });
  createNotifier({ db, wakeChannel, concurrency: 32 }).start();
  process.send!('ready');
}

async function main(): Promise<void> {
  const events = Number(arg('events', '2000'));
  const webhookCount = Number(arg('webhooks', '50'));
  const workerCounts = arg('workers', '1,2,4').split(',').map(Number);
  const database = `tracehook_bench_${randomBytes(4).toString('hex')}`;
  const url = TEST_POSTGRES_URL.replace(/\/[^/]*$/, `/${database}`);
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const db = await createPostgresDatabase({ connectionString: url, maxConnections: 2 });
  await migrate(db);
  let acked = new Set<string>();
  let want = 0;
  let done: (() => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Length': 2 }).end('ok');
      acked.add((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
      if (acked.size >= want) done?.();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  const webhooks: Awaited<ReturnType<typeof insertTestWebhook>>[] = [];
  for (let i = 0; i < webhookCount; i++) webhooks.push(await insertTestWebhook(db, hook));
  const appender = createNotifier({ db });
  console.log(`| workers | events | seconds | deliveries/s |\n| --- | --- | --- | --- |`);
  try {
    for (const k of workerCounts) {
      acked = new Set();
      want = events;
      await db.transaction((tx) =>
        appender.appendEvents(tx, Array.from({ length: events }, (_, i) => ({ webhookId: webhooks[i % webhooks.length]!.id, type: 'ADDRESS_ACTIVITY' as const, event: { i } }))),
      );
      const finished = new Promise<void>((r) => (done = r));
      const started = performance.now();
      const children: ChildProcess[] = [];
      for (let i = 0; i < k; i++) children.push(fork(fileURLToPath(import.meta.url), ['--worker', url], { execArgv: ['--import', 'tsx'], stdio: 'inherit' }));
      await Promise.all(children.map((c) => new Promise((r) => c.once('message', r))));
      const ready = performance.now();
      await finished;
      const seconds = (performance.now() - ready) / 1000;
      console.log(`| ${k} | ${events} | ${seconds.toFixed(2)} | ${Math.round(events / seconds)} |  (start-up ${((ready - started) / 1000).toFixed(1)} s not counted)`);
      for (const c of children) c.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 3500)); // the killed workers' leases expire
    }
  } finally {
    server.close();
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv.includes('--worker')) await runWorker(process.argv[process.argv.indexOf('--worker') + 1]!);
else await main();
