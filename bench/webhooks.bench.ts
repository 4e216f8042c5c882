// Webhook delivery benchmark: deliveries per second to a local listener (a burst drained through
// the outbox), and latency from event creation (append committed) to the listener's 200 under a
// paced load, with 1, 10 and 100 webhooks. SQLite store in a temp dir; the listener runs in its own
// process so it does not share the event loop with the delivery worker.
//
//   npx tsx bench/webhooks.bench.ts [--burst 3000] [--paced-seconds 3] [--rate 100]
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSqliteDatabase } from '../src/store/sqlite/sqliteDatabase.js';
import { migrate } from '../src/store/migrations/migrate.js';
import type { SqlDatabase } from '../src/store/sql.js';
import { createNotifier, type Notifier } from '../src/notify/createNotifier.js';
import { createWebhookRepository } from '../src/notify/webhooks/webhookRepository.js';
import { createWebhookIds } from '../src/notify/webhooks/webhookIds.js';

const wallMs = () => performance.timeOrigin + performance.now();

// ---- listener process: answers 200 and reports (event id, time the 200 was written) ----------
function runListener(): void {
  const acks: Array<[string, number]> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
      res.end('ok');
      const body = Buffer.concat(chunks).toString('utf8');
      acks.push([body.slice(body.indexOf('"id":"') + 6, body.indexOf('"', body.indexOf('"id":"') + 6)), wallMs()]);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'drain') {
      process.send!({ acks: acks.splice(0) });
    }
    if (m.cmd === 'exit') server.close(() => process.exit(0));
  });
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

async function startListener(): Promise<{ child: ChildProcess; url: string; drain(): Promise<Array<[string, number]>> }> {
  const child = fork(fileURLToPath(import.meta.url), ['--listener'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const { port } = await new Promise<{ port: number }>((r) => child.once('message', (m) => r(m as { port: number })));
  return {
    child,
    url: `http://127.0.0.1:${port}/hook`,
    drain: () =>
      new Promise((r) => {
        child.once('message', (m) => r((m as { acks: Array<[string, number]> }).acks));
        child.send({ cmd: 'drain' });
      }),
  };
}

async function setup(webhooks: number, url: string): Promise<{ db: SqlDatabase; dir: string; ids: string[]; notifier: Notifier }> {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-bench-'));
  const db = createSqliteDatabase({ filename: join(dir, 'service.sqlite') });
  await migrate(db);
  const repo = createWebhookRepository(db);
  const gen = createWebhookIds();
  const ids: string[] = [];
  for (let i = 0; i < webhooks; i++) {
    const w = await repo.create(
      { id: gen.webhookId(), network: 'ETH_MAINNET', type: 'ADDRESS_ACTIVITY', url, name: null, appId: null, signingKey: gen.signingKey(), graphqlQuery: null, skipEmptyMessages: false, addresses: ['0x00000000000000000000000000000000000000aa'], nftFilters: [], createdAt: Date.now() },
      Number.POSITIVE_INFINITY,
    );
    ids.push(w!.id);
  }
  const notifier = createNotifier({ db, concurrency: 32, pollIntervalMs: 100 });
  return { db, dir, ids, notifier };
}

const sampleEvent = (n: number) => ({
  network: 'ETH_MAINNET',
  activity: [{ blockNum: `0x${n.toString(16)}`, hash: `0x${'ab'.repeat(32)}`, fromAddress: `0x${'11'.repeat(20)}`, toAddress: `0x${'22'.repeat(20)}`, value: 1.5, asset: 'ETH', category: 'external' }],
});

async function waitForAcks(listener: Awaited<ReturnType<typeof startListener>>, count: number, into: Map<string, number>): Promise<void> {
  while (into.size < count) {
    for (const [id, t] of await listener.drain()) if (!into.has(id)) into.set(id, t);
    if (into.size < count) await new Promise((r) => setTimeout(r, 20));
  }
}

/** Burst: `total` events over the webhooks, appended 100 per transaction; deliveries per second to drain. */
async function burst(webhooks: number, total: number, listener: Awaited<ReturnType<typeof startListener>>) {
  const { db, dir, ids, notifier } = await setup(webhooks, listener.url);
  notifier.start();
  const started = performance.now();
  for (let i = 0; i < total; i += 100) {
    await db.transaction((tx) => notifier.appendEvents(tx, Array.from({ length: Math.min(100, total - i) }, (_, j) => ({ webhookId: ids[(i + j) % ids.length]!, type: 'ADDRESS_ACTIVITY' as const, event: sampleEvent(i + j) }))));
    notifier.wake();
  }
  const acks = new Map<string, number>();
  await waitForAcks(listener, total, acks);
  const seconds = (performance.now() - started) / 1000;
  await notifier.stop();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return total / seconds;
}

/** Paced: `rate` events/s (one per transaction, round-robin over webhooks) for `seconds`; creation → 200 latency. */
async function paced(webhooks: number, rate: number, seconds: number, listener: Awaited<ReturnType<typeof startListener>>) {
  const { db, dir, ids, notifier } = await setup(webhooks, listener.url);
  notifier.start();
  const created = new Map<string, number>();
  const total = Math.round(rate * seconds);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const [event] = await db.transaction((tx) => notifier.appendEvents(tx, [{ webhookId: ids[i % ids.length]!, type: 'ADDRESS_ACTIVITY', event: sampleEvent(i) }]));
    created.set(event!.id, wallMs());
    notifier.wake();
  }
  const acks = new Map<string, number>();
  await waitForAcks(listener, total, acks);
  const latencies = [...created].map(([id, t]) => acks.get(id)! - t).sort((a, b) => a - b);
  await notifier.stop();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  const total = arg('burst', 3000);
  const seconds = arg('paced-seconds', 3);
  const rate = arg('rate', 100);
  const listener = await startListener();
  const rows: string[] = [];
  try {
    await burst(1, 200, listener); // warm-up (JIT, sockets)
    for (const webhooks of [1, 10, 100]) {
      const dps = await burst(webhooks, total, listener);
      const lat = await paced(webhooks, rate, seconds, listener);
      rows.push(`| ${webhooks} | ${total} | ${dps.toFixed(0)} | ${rate} | ${lat.p50.toFixed(1)} | ${lat.p99.toFixed(1)} |`);
    }
  } finally {
    listener.child.send({ cmd: 'exit' });
  }
  console.log('Webhook delivery (SQLite store, local listener in another process, concurrency 32)');
  console.log('| webhooks | burst events | deliveries/s (burst) | paced events/s | creation→200 p50 ms | p99 ms |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

if (process.argv.includes('--listener')) runListener();
else await main();
