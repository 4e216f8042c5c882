// anvil_mine of many empty blocks, side by side with the real anvil in the same run: how long the
// call takes, and how long another client's eth_blockNumber waits meanwhile (p50/p99/max). Tracehook
// runs from the build (as `npm start` does: `npm run build` first).
//
//   npx tsx bench/anvilMine.bench.ts [--blocks 10000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnvil } from '../src/testing/startAnvil.js';
import { spawnTracehook } from '../src/testing/spawnTracehook.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

interface MineRun {
  mineMs: number;
  otherMs: number[];
}

/** anvil_mine(`blocks`) on `url` while another client calls eth_blockNumber back to back. */
async function mineWhileOtherClientRuns(url: string, blocks: number): Promise<MineRun> {
  await rpc(url, 'anvil_mine', ['0x5']); // warm-up
  const start = Number(await rpc(url, 'eth_blockNumber'));
  const otherMs: number[] = [];
  let mining = true;
  const other = (async () => {
    while (mining) {
      const t = performance.now();
      await rpc(url, 'eth_blockNumber');
      otherMs.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const t = performance.now();
  await rpc(url, 'anvil_mine', [`0x${blocks.toString(16)}`]);
  const mineMs = performance.now() - t;
  mining = false;
  await other;
  const head = Number(await rpc(url, 'eth_blockNumber'));
  if (head !== start + blocks) throw new Error(`${url}: head ${head} after mining ${blocks} blocks from ${start}`);
  return { mineMs, otherMs: otherMs.sort((a, b) => a - b) };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const describeRun = (name: string, run: MineRun) =>
  `  ${name.padEnd(9)} ${(run.mineMs / 1000).toFixed(2)} s (${((run.mineMs * 1000) / arg('blocks', 10_000)).toFixed(0)} µs/block); other client: ${run.otherMs.length} calls, ` +
  `p50 ${percentile(run.otherMs, 50).toFixed(1)} ms, p99 ${percentile(run.otherMs, 99).toFixed(1)} ms, max ${(run.otherMs.at(-1) ?? NaN).toFixed(1)} ms`;

async function main(): Promise<void> {
  const blocks = arg('blocks', 10_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-bench-mine-'));
  const service = await spawnTracehook({ dataDir, from: 'build', args: ['--log-level', 'warn'] });
  let ours: MineRun;
  try {
    ours = await mineWhileOtherClientRuns(service.rpcUrl, blocks);
  } finally {
    await service.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
  const anvil = await startAnvil(['--silent']);
  let theirs: MineRun;
  try {
    theirs = await mineWhileOtherClientRuns(anvil.url, blocks);
  } finally {
    await anvil.stop();
  }
  console.log(`anvil_mine of ${blocks} empty blocks`);
  console.log(describeRun('tracehook', ours));
  console.log(describeRun('anvil', theirs));
  console.log(`  time ratio tracehook/anvil: ${(ours.mineMs / theirs.mineMs).toFixed(2)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
