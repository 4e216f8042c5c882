// Chain follower benchmark: real blocks (mined by anvil from the Activity* contracts: ERC-20, ETH
// sent directly and through contracts, ERC-721 mints, ERC-1155 batches) replayed from memory into
// the follower with 10 ADDRESS_ACTIVITY (one watching 1,000,000 addresses), 10 NFT_ACTIVITY and 10
// GRAPHQL webhooks on a SQLite store. Reports catch-up throughput (blocks/s), latency from block
// arrival to the notification reaching a listener in another process (p50/p99), and the memory and
// disk the 1,000,000-address webhook costs. Run once with 1,000,000 and once with 1,000 addresses
// on the big webhook to show matching does not depend on the watched-address count.
//
//   npx tsx bench/follower.bench.ts [--blocks 120] [--txs 30] [--addresses 1000000] [--paced 40] [--interval-ms 400]
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEther } from 'viem';
import type { Hex } from '../src/rpc/hex.js';
import { createSqliteDatabase } from '../src/store/sqlite/sqliteDatabase.js';
import { migrate } from '../src/store/migrations/migrate.js';
import { webhooksMigration } from '../src/store/migrations/002_webhooks.js';
import { followerMigration } from '../src/store/migrations/003_follower.js';
import type { SqlDatabase } from '../src/store/sql.js';
import { createNotifier } from '../src/notify/createNotifier.js';
import { createWebhookRepository } from '../src/notify/webhooks/webhookRepository.js';
import { createWebhookIds } from '../src/notify/webhooks/webhookIds.js';
import type { NftFilter, WebhookType } from '../src/notify/webhooks/webhookTypes.js';
import type { BlockData } from '../src/notify/extract/blockData.js';
import { TRANSFER_BATCH_TOPIC, TRANSFER_TOPIC } from '../src/notify/extract/transfers.js';
import { createChainFollower } from '../src/notify/follow/chainFollower.js';
import { createMemoryBlockSource } from '../src/notify/follow/memoryBlockSource.js';
import { createHttpJsonRpc, createJsonRpcBlockSource } from '../src/notify/follow/jsonRpcBlockSource.js';
import { createActivityClient, encodeActivityCall, type ActivityDeployment } from '../src/notify/follow/testing/activityContracts.js';
import { startAnvil } from '../src/testing/startAnvil.js';

const wallMs = () => performance.timeOrigin + performance.now();
const NETWORK = 'BENCH_NET';

// ---- listener process: answers 200 and reports (webhookId, block, time received) ---------------
function runListener(): void {
  const seen: Array<[string, string, number]> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = wallMs();
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 });
      res.end('ok');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { webhookId: string; event: { activity?: { blockNum: string }[]; data?: { block?: { number?: number } } } };
      const block = body.event.activity?.[0]?.blockNum ?? `0x${(body.event.data?.block?.number ?? -1).toString(16)}`;
      seen.push([body.webhookId, block, at]);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'drain') process.send!({ seen: seen.splice(0) });
    if (m.cmd === 'exit') server.close(() => process.exit(0));
  });
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Deterministic pseudo-random address number i (so runs are comparable). */
const addressOf = (i: number): Hex => `0x${createHash('sha256').update(`watched-${i}`).digest('hex').slice(0, 40)}`;
const unwatched = (i: number): Hex => `0x${createHash('sha256').update(`other-${i}`).digest('hex').slice(0, 40)}`;

/** Mines `blockCount` blocks of `txs` mixed transfers on anvil and returns the chain as BlockData. */
interface Recorded {
  blocks: BlockData[];
  contracts: ActivityDeployment;
  sender: Hex;
  call: ReturnType<typeof createJsonRpcBlockSource>['call'];
}

async function recordBlocks(blockCount: number, txs: number, hot: Hex[]): Promise<Recorded & { metadata: Map<string, Uint8Array | null> }> {
  const anvil = await startAnvil(['--gas-limit', '300000000']);
  try {
    const rpc = createHttpJsonRpc(anvil.url);
    const client = await createActivityClient(rpc);
    const sender = client.accounts[0]!;
    const k = await client.deploy(sender);
    await client.send({ from: sender, to: k.token, data: encodeActivityCall('ActivityToken', 'mint', [sender, 10n ** 30n]) });
    await rpc('evm_setAutomine', [false]);
    let nftId = 1n;
    let pick = 0;
    const next = () => hot[(pick = (pick * 7919 + 13) % hot.length)]!;
    for (let n = 0; n < blockCount; n++) {
      // One sender, so sends go one after another (each takes the next pending nonce).
      const sends: (() => Promise<Hex>)[] = [];
      for (let i = 0; i < txs; i++) {
        const kind = i % 8;
        if (kind < 2) sends.push(() => client.send({ from: sender, to: k.token, data: encodeActivityCall('ActivityToken', 'transfer', [next(), 1_000_000n + BigInt(i)]), gas: 100_000n }));
        else if (kind === 2) sends.push(() => client.send({ from: sender, to: next(), value: parseEther('0.01'), gas: 21_000n }));
        else if (kind === 3) sends.push(() => client.send({ from: sender, to: k.router1, data: encodeActivityCall('ActivityRouter', 'split', [[next(), next(), next()], [1n, 2n, 3n]]), value: 6n, gas: 200_000n }));
        else if (kind === 4) sends.push(() => client.send({ from: sender, to: k.nft, data: encodeActivityCall('ActivityNft', 'mint', [next(), nftId++]), gas: 150_000n }));
        else if (kind === 5) sends.push(() => client.send({ from: sender, to: k.multi, data: encodeActivityCall('ActivityMulti', 'mintBatch', [next(), [1n, 2n, 3n], [5n, 6n, 7n]]), gas: 200_000n }));
        else if (kind === 6) sends.push(() => client.send({ from: sender, to: unwatched(n * txs + i), value: 1n, gas: 21_000n }));
        else sends.push(() => client.send({ from: sender, to: k.token, data: encodeActivityCall('ActivityToken', 'transfer', [unwatched(n * txs + i), 5n]), gas: 100_000n }));
      }
      for (const s of sends) await s();
      await rpc('evm_mine', []);
    }
    const source = createJsonRpcBlockSource({ request: rpc });
    const head = await source.head();
    const blocks: BlockData[] = [];
    for (let n = 0n; n <= head.number; n++) blocks.push((await source.blockByNumber(n))!);
    // Token metadata is read once per contract; answer those reads from the recorded chain state.
    const metadata = new Map<string, Uint8Array | null>();
    for (const contract of [k.token, k.nft, k.multi]) {
      for (const selector of ['0x95d89b41', '0x313ce567'] as Hex[]) metadata.set(`${contract}${selector}`, await source.call(contract, selector, head));
    }
    return { blocks, contracts: k, sender, metadata, call: async (to, data) => metadata.get(`${to}${data}`) ?? null };
  } finally {
    await anvil.stop();
  }
}

interface Setup {
  db: SqlDatabase;
  dir: string;
  bigHook: string;
  setupMs: number;
  rssDeltaMb: string;
  dbMb: string;
}

async function createWebhooks(url: string, bigCount: number, hot: Hex[], k: ActivityDeployment, sender: Hex): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-follower-bench-'));
  const db = createSqliteDatabase({ filename: join(dir, 'service.sqlite') });
  await migrate(db, [webhooksMigration, followerMigration]);
  const repo = createWebhookRepository(db);
  const ids = createWebhookIds();
  const create = async (type: WebhookType, extra: { addresses?: string[]; nftFilters?: NftFilter[]; graphqlQuery?: string; skipEmptyMessages?: boolean }) =>
    (await repo.create(
      { id: ids.webhookId(), network: NETWORK, type, url, name: null, appId: null, signingKey: ids.signingKey(), graphqlQuery: extra.graphqlQuery ?? null, skipEmptyMessages: extra.skipEmptyMessages ?? false, addresses: extra.addresses ?? [], nftFilters: extra.nftFilters ?? [], createdAt: Date.now() },
      Infinity,
    ))!.id;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  // Sorted, so SQLite's B-trees fill in order: 1,000,000 random-order inserts take minutes
  // (a page-cache miss per row), sorted ones seconds. The repository keeps the order it gets.
  // The same 500 busy recipients in every run, padded with addresses no block touches, so runs
  // with 1,000 and 1,000,000 addresses send exactly the same notifications.
  const big = [...hot.slice(0, 500), ...Array.from({ length: bigCount - 500 }, (_, i) => addressOf(10_000_000 + i))].sort();
  const bigHook = await create('ADDRESS_ACTIVITY', { addresses: big });
  const setupMs = performance.now() - t0;
  big.length = 0;
  global.gc?.();
  const rssDeltaMb = mb(process.memoryUsage().rss - rssBefore);
  for (let w = 1; w < 10; w++) {
    await create('ADDRESS_ACTIVITY', { addresses: [...Array.from({ length: 950 }, (_, i) => unwatched(1_000_000 + w * 1000 + i)), ...hot.slice(w * 50, w * 50 + 50)] });
  }
  for (let w = 0; w < 10; w++) {
    const filters: NftFilter[] = w < 5 ? [{ contractAddress: k.nft, tokenId: null }] : w < 8 ? [{ contractAddress: k.multi, tokenId: String(w - 4) }] : [{ contractAddress: k.multi, tokenId: null }, { contractAddress: k.nft, tokenId: '3' }];
    await create('NFT_ACTIVITY', { nftFilters: filters });
  }
  const queries = [
    '{ block { hash number } }',
    `{ block { logs(filter: {addresses: ["${k.token}"], topics: ["${TRANSFER_TOPIC}"]}) { data topics transaction { hash } } } }`,
    `{ block { callTracerTraces(filter: {addresses: [{from: ["${k.router1}"]}]}) { to { address } value traceAddressPath } } }`,
    `{ block { transactions(filter: {addresses: [{from: ["${sender}"]}]}) { hash value gasUsed status } } }`,
    `{ block { logs(filter: {addresses: ["${k.nft}"]}) { topics transaction { hash from { address } } } } }`,
    `{ block { logs(filter: {addresses: ["${k.multi}"], topics: ["${TRANSFER_BATCH_TOPIC}"]}) { data } } }`,
    '{ block { number timestamp parent { hash } } }',
    `{ block { transactions(filter: {addresses: [{to: ["${k.router1}"]}]}) { hash inputData } } }`,
    '{ block { hash transactions { hash from { address } to { address } value logs { topics data } } } }',
    `{ block { callTracerTraces(filter: {addresses: [{to: ["${hot[0]}", "${hot[1]}"]}]}) { from { address } value } } }`,
  ];
  for (const [i, query] of queries.entries()) await create('GRAPHQL', { graphqlQuery: query, skipEmptyMessages: i % 2 === 1 });
  return { db, dir, bigHook, setupMs, rssDeltaMb, dbMb: mb(statSync(join(dir, 'service.sqlite')).size + (statSync(join(dir, 'service.sqlite-wal'), { throwIfNoEntry: false })?.size ?? 0)) };
}

async function runScenario(bigCount: number, recorded: Recorded, hot: Hex[], paced: number, intervalMs: number) {
  const child = fork(fileURLToPath(import.meta.url), ['--listener'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const { port } = await new Promise<{ port: number }>((r) => child.once('message', (m) => r(m as { port: number })));
  const drain = () => new Promise<Array<[string, string, number]>>((r) => {
    child.once('message', (m) => r((m as { seen: Array<[string, string, number]> }).seen));
    child.send({ cmd: 'drain' });
  });
  const setup = await createWebhooks(`http://127.0.0.1:${port}/hook`, bigCount, hot, recorded.contracts, recorded.sender);
  const { blocks } = recorded;
  const catchUpEnd = blocks.length - paced;
  // Catch-up: the follower starts at the deploy block and processes everything already mined.
  const source = createMemoryBlockSource({ blocks: blocks.slice(0, catchUpEnd), call: recorded.call });
  const notifier = createNotifier({ db: setup.db, pollIntervalMs: 50 });
  const follower = createChainFollower({ network: NETWORK, db: setup.db, source, outbox: notifier, startAt: 1n, pollIntervalMs: 1000 });
  const t0 = performance.now();
  const report = await follower.syncOnce();
  const catchUpMs = performance.now() - t0;
  // Paced: blocks arrive one by one; latency is arrival → listener for each notification.
  notifier.start();
  follower.start();
  // Let the catch-up notifications go out first so the paced ones do not queue behind them.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const [row] = await setup.db.query<{ n: unknown }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'");
    if (Number(row!.n) === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await drain();
  const arrivedAt = new Map<string, number>();
  for (const block of blocks.slice(catchUpEnd)) {
    arrivedAt.set(block.header.number, wallMs());
    source.append(block);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  await new Promise((r) => setTimeout(r, 3000));
  const seen = await drain();
  await follower.stop();
  await notifier.stop();
  child.send({ cmd: 'exit' });
  const lat = (rows: typeof seen) => rows.filter(([, block]) => arrivedAt.has(block)).map(([, block, at]) => at - arrivedAt.get(block)!).sort((x, y) => x - y);
  const all = lat(seen);
  const big = lat(seen.filter(([id]) => id === setup.bigHook));
  global.gc?.();
  const rssMb = mb(process.memoryUsage().rss);
  await setup.db.close();
  rmSync(setup.dir, { recursive: true, force: true });
  return { bigCount, setup, report, catchUpMs, catchUpBlocks: report.blocks, all, big, rssMb, pacedBlocks: paced };
}

async function main(): Promise<void> {
  const blockCount = arg('blocks', 120);
  const txs = arg('txs', 30);
  const addresses = arg('addresses', 1_000_000);
  const paced = arg('paced', 40);
  const intervalMs = arg('interval-ms', 400);
  const hot = Array.from({ length: 2000 }, (_, i) => addressOf(i * 487));
  // Recorded blocks are kept in .bench-data (git-ignored) so reruns skip the anvil phase.
  const cacheDir = join(dirname(fileURLToPath(import.meta.url)), '..', '.bench-data');
  const cacheFile = join(cacheDir, `follower-${blockCount}x${txs}.json`);
  let recorded: Recorded;
  if (existsSync(cacheFile)) {
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as Omit<Recorded, 'call'> & { metadata: Record<string, Hex | null> };
    recorded = { ...cached, call: async (to, data) => (cached.metadata[`${to}${data}`] ? Buffer.from(cached.metadata[`${to}${data}`]!.slice(2), 'hex') : null) };
    console.log(`using ${cacheFile}`);
  } else {
    console.log(`recording ${blockCount} blocks × ${txs} transactions on anvil…`);
    const fresh = await recordBlocks(blockCount, txs, hot);
    recorded = fresh;
    mkdirSync(cacheDir, { recursive: true });
    const metadata = Object.fromEntries([...fresh.metadata].map(([key, value]) => [key, value ? `0x${Buffer.from(value).toString('hex')}` : null]));
    writeFileSync(cacheFile, JSON.stringify({ blocks: fresh.blocks, contracts: fresh.contracts, sender: fresh.sender, metadata }));
  }
  const transfers = recorded.blocks.reduce((n, b) => n + b.receipts.reduce((m, r) => m + r.logs.length, 0), 0);
  console.log(`recorded ${recorded.blocks.length} blocks, ${transfers} logs`);
  const rows = [];
  for (const count of [addresses, 1000]) rows.push(await runScenario(count, recorded, hot, paced, intervalMs));
  console.log('\nChain follower: 10 ADDRESS_ACTIVITY + 10 NFT_ACTIVITY + 10 GRAPHQL webhooks, SQLite store');
  console.log('| big webhook addresses | create s | RSS +MB while creating | DB MB | catch-up blocks/s | events/s | latency p50/p99 ms (big webhook) | latency p50/p99 ms (all) | notifications | RSS MB |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const bps = r.catchUpBlocks / (r.catchUpMs / 1000);
    console.log(
      `| ${r.bigCount.toLocaleString('en')} | ${(r.setup.setupMs / 1000).toFixed(1)} | ${r.setup.rssDeltaMb} | ${r.setup.dbMb} | ${bps.toFixed(1)} | ${(r.report.events / (r.catchUpMs / 1000)).toFixed(0)} | ${percentile(r.big, 50).toFixed(1)} / ${percentile(r.big, 99).toFixed(1)} | ${percentile(r.all, 50).toFixed(1)} / ${percentile(r.all, 99).toFixed(1)} | ${r.all.length} | ${r.rssMb} |`,
    );
  }
  console.log(`\n${blockCount} blocks of ${txs} transactions; catch-up = follower.syncOnce over ${rows[0]!.catchUpBlocks} stored blocks (no delivery running);`);
  console.log(`latency = block handed to the follower → notification received by a listener in another process, ${paced} blocks ${intervalMs} ms apart.`);
}

if (process.argv.includes('--listener')) runListener();
else
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
