// Gateways side by side (issue 17 item 6): JSON-RPC requests per second through one `--role all`
// process, and through it plus a `--role gateway` process on the same PostgreSQL store, in front of
// one anvil node, against anvil asked directly, in one run. The load is split evenly over the
// gateways' ports (what a load balancer in front of them would do); the API key is the first
// process's, valid on both since keys live in the shared store.
//
//   npm run build && npx tsx bench/gateways.bench.ts [--txs 200] [--duration 4] [--connections 8]
//
// On a 2-core machine the gateways, anvil and the load generators share the cores, so a second
// gateway process adds little here; the figures say how much, and docs/scale-out.md says where it
// grows on more machines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keccak256 } from 'viem';
import { startAnvil } from '../src/testing/startAnvil.js';
import { spawnTracehook, type TracehookProcess } from '../src/testing/spawnTracehook.js';
import { scratchDatabase } from '../src/store/testing/scratchDatabase.js';
import { failedRequests, runLoadInChild, type LoadResult, type LoadSpec } from './loadGenerator.js';
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

/** Runs `bodies` against every URL at once, the connections split evenly; the req/s summed. */
async function loadOver(urls: string[], bodies: string[]): Promise<{ rps: number; bad: number }> {
  const spec = (url: string): LoadSpec => ({ url, body: '', bodies, connections: Math.max(1, Math.floor(CONNECTIONS / urls.length)), durationMs: DURATION_MS, warmupMs: 1000 });
  const results: LoadResult[] = await Promise.all(urls.map((url) => runLoadInChild(spec(url))));
  const bad = results.reduce((n, r) => n + failedRequests(r), 0);
  return { rps: results.reduce((n, r) => n + r.rps, 0), bad };
}

async function main(): Promise<void> {
  const anvil = await startAnvil();
  const scratch = scratchDatabase('tracehook_gwbench');
  await scratch.create();
  const dirs: string[] = [];
  const procs: TracehookProcess[] = [];
  const spawn = async (role: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), `tracehook-gwbench-${role}-`));
    dirs.push(dataDir);
    const p = await spawnTracehook({ dataDir, args: ['--log-level', 'warn', '--role', role, '--database-url', scratch.url, '--upstream', anvil.url], from: 'build' });
    procs.push(p);
    return p;
  };
  try {
    const raws = await signedErc20Transactions(TXS);
    for (const raw of raws) await rpc(anvil.url, 'eth_sendRawTransaction', [raw]);
    const hashes = raws.slice(1).map((raw) => keccak256(raw));
    const first = await spawn('all');
    const second = await spawn('gateway');
    const keyPath = new URL(first.rpcUrl).pathname;
    const urls = [first.rpcUrl, new URL(keyPath, second.baseUrl).toString()];
    const workloads: [string, string[]][] = [
      ['eth_blockNumber', [body('eth_blockNumber', [])]],
      ['trace_transaction, warm (cache)', hashes.map((h) => body('trace_transaction', [h]))],
    ];
    // Warm both gateways' caches and JIT first.
    for (const [, bodies] of workloads) await loadOver(urls, bodies);
    console.log(`\nGateways on one PostgreSQL store in front of one anvil; ${CONNECTIONS} connections in all, ${DURATION_MS / 1000} s per row.\n`);
    console.log('| workload | 1 gateway req/s | 2 gateways req/s | 2 / 1 | anvil direct req/s | 1 gateway / anvil | 2 gateways / anvil | non-200 or errors |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [name, bodies] of workloads) {
      const one = await loadOver(urls.slice(0, 1), bodies);
      const two = await loadOver(urls, bodies);
      const direct = await loadOver([anvil.url], bodies);
      const r = (a: number, b: number) => (a / b).toFixed(2);
      console.log(`| ${name} | ${one.rps} | ${two.rps} | ${r(two.rps, one.rps)} | ${direct.rps} | ${r(one.rps, direct.rps)} | ${r(two.rps, direct.rps)} | ${one.bad + two.bad + direct.bad} |`);
    }
  } finally {
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    await anvil.stop();
    await scratch.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
