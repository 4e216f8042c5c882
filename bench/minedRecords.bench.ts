// What keeping records at mining costs the miner: CPU and wall time per mined transaction
// (eth_sendRawTransaction with automine, in-process, no HTTP) with records off (0) and on (default
// budget), in alternating rounds on fresh chains so both settings see the same machine load.
//
//   npx tsx bench/minedRecords.bench.ts [--txs 400] [--rounds 4]
//
// It also prints the SQLite pages each block's commit writes to chain.sqlite's WAL: a second
// connection holds a read snapshot open, so no checkpoint can restart the WAL and its growth over
// the run counts every frame (4 KiB page + 24-byte header) the commits appended.
//
// The transactions are the traces bench's: an ERC-20 deployment, then transfers. anvil has no such
// setting, so it is not run here; traces.bench.ts prints the mining row side by side with anvil.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { hexToBytes } from 'viem';
import { createDevChain } from '../src/engine/chain/devChain.js';
import { makeTempDir } from '../src/engine/chain/testing/tempChain.js';
import { numberArg, signedErc20Transactions } from './erc20Workload.js';

const TXS = numberArg('txs', 400);
const ROUNDS = numberArg('rounds', 4);

async function signedTransactions(): Promise<Uint8Array[]> {
  return (await signedErc20Transactions(TXS)).map((raw) => hexToBytes(raw));
}

/** Mines every transaction on a fresh chain; returns CPU and wall ms per transaction. */
async function mine(raws: Uint8Array[], minedRecordBytes: number): Promise<{ cpuMs: number; wallMs: number }> {
  const dataDir = makeTempDir('tracehook-mining-bench-');
  const chain = await createDevChain({ dataDir, minedRecordBytes });
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const raw of raws) await chain.sendRawTransaction(raw);
    const used = process.cpuUsage(cpu);
    return { cpuMs: (used.user + used.system) / 1000 / raws.length, wallMs: (performance.now() - started) / raws.length };
  } finally {
    await chain.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** WAL frames appended per mined transaction (one block each), records on. */
async function walPagesPerBlock(raws: Uint8Array[]): Promise<number> {
  const dataDir = makeTempDir('tracehook-mining-pages-');
  const chain = await createDevChain({ dataDir, minedRecordBytes: 64 * 1024 * 1024 });
  const file = join(dataDir, 'chain.sqlite');
  const reader = new Database(file, { readonly: true });
  try {
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT COUNT(*) FROM meta').get();
    const walBytes = () => statSync(`${file}-wal`).size;
    const before = walBytes();
    for (const raw of raws) await chain.sendRawTransaction(raw);
    return (walBytes() - before) / (4096 + 24) / raws.length;
  } finally {
    reader.close();
    await chain.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const raws = await signedTransactions();
await mine(raws.slice(0, 50), 0); // JIT warm-up
const settings = [
  { name: 'records off (--mined-trace-memory-mb 0)', bytes: 0 },
  { name: 'records on (64 MiB)', bytes: 64 * 1024 * 1024 },
];
const results = settings.map(() => [] as { cpuMs: number; wallMs: number }[]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, s] of settings.entries()) results[i]!.push(await mine(raws, s.bytes));
}
const fmt = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)} (median ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2)})`;
console.log(`\nMining ${raws.length} transactions (automine, in-process), ${ROUNDS} alternating rounds per setting:\n`);
console.log('| setting | CPU ms per tx | wall ms per tx |');
console.log('| --- | ---: | ---: |');
for (const [i, s] of settings.entries()) console.log(`| ${s.name} | ${fmt(results[i]!.map((r) => r.cpuMs))} | ${fmt(results[i]!.map((r) => r.wallMs))} |`);
console.log(`\nSQLite pages written to the WAL per block (one transaction each, records on): ${(await walPagesPerBlock(raws)).toFixed(1)}`);
