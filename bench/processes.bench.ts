// `tracehook start --processes 1` against `--processes 2` on one machine (issue 17 items 4 and 6):
// JSON-RPC requests per second on the embedded chain (`eth_blockNumber`, warm `trace_transaction`
// of ERC-20 transfers) through the one port, against anvil asked directly, in one run. Each
// deployment gets a fresh PostgreSQL database and the same signed transactions; with 2 processes
// node:cluster spreads the load generator's connections over the owner and the gateway child.
//
//   npm run build && npx tsx bench/processes.bench.ts [--txs 200] [--duration 4] [--connections 8]
//
// On a 2-core machine the processes, anvil and the load generators share the cores; the figures
// say how much a second process adds there (docs/scale-out.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keccak256 } from 'viem';
import { startAnvil } from '../src/testing/startAnvil.js';
import { spawnTracehook } from '../src/testing/spawnTracehook.js';
import { scratchDatabase } from '../src/store/testing/scratchDatabase.js';
import { failedRequests, runLoadInChild, type LoadResult } from './loadGenerator.js';
import { numberArg, signedErc20Transactions } from './erc20Workload.js';

const TXS = numberArg('txs', 200);
const DURATION_MS = numberArg('duration', 4) * 1000;
const CONNECTIONS = numberArg('connections', 8);

const body = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const answer = (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(method, params) })).json()) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

async function load(url: string, bodies: string[]): Promise<{ rps: number; bad: number }> {
  const result: LoadResult = await runLoadInChild({ url, body: '', bodies, connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 });
  return { rps: result.rps, bad: failedRequests(result) };
}

type Workloads = [string, string[]][];

/** Starts `--processes n` on a fresh database, sends the transactions, measures every workload twice (the first warms). */
async function measureProcesses(n: number, raws: `0x${string}`[], workloads: Workloads): Promise<{ rps: number; bad: number }[]> {
  const scratch = scratchDatabase('tracehook_procbench');
  await scratch.create();
  const dataDir = mkdtempSync(join(tmpdir(), `tracehook-procbench-${n}-`));
  const proc = await spawnTracehook({ dataDir, from: 'build', args: ['--log-level', 'warn', '--processes', String(n), '--database-url', scratch.url] });
  try {
    for (const raw of raws) await rpc(proc.rpcUrl, 'eth_sendRawTransaction', [raw]);
    const out: { rps: number; bad: number }[] = [];
    for (const [, bodies] of workloads) {
      await load(proc.rpcUrl, bodies);
      out.push(await load(proc.rpcUrl, bodies));
    }
    return out;
  } finally {
    await proc.kill('SIGTERM');
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const anvil = await startAnvil();
  try {
    const raws = await signedErc20Transactions(TXS);
    const hashes = raws.slice(1).map((raw) => keccak256(raw));
    const workloads: Workloads = [
      ['eth_blockNumber', [body('eth_blockNumber', [])]],
      ['trace_transaction, warm', hashes.map((h) => body('trace_transaction', [h]))],
    ];
    for (const raw of raws) await rpc(anvil.url, 'eth_sendRawTransaction', [raw]);
    const one = await measureProcesses(1, raws, workloads);
    const two = await measureProcesses(2, raws, workloads);
    const direct: { rps: number; bad: number }[] = [];
    for (const [, bodies] of workloads) {
      await load(anvil.url, bodies);
      direct.push(await load(anvil.url, bodies));
    }
    console.log(`\nThe embedded chain through one port, --processes 1 and 2 (PostgreSQL store), and anvil; ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per row.\n`);
    console.log('| workload | --processes 1 req/s | --processes 2 req/s | 2 / 1 | anvil req/s | 1 / anvil | 2 / anvil | non-200 or errors |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const r = (a: number, b: number) => (a / b).toFixed(2);
    workloads.forEach(([name], i) => {
      const [a, b, c] = [one[i]!, two[i]!, direct[i]!];
      console.log(`| ${name} | ${a.rps} | ${b.rps} | ${r(b.rps, a.rps)} | ${c.rps} | ${r(a.rps, c.rps)} | ${r(b.rps, c.rps)} | ${a.bad + b.bad + c.bad} |`);
    });
  } finally {
    await anvil.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
