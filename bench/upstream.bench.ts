// Upstream benchmark (issue 12 item 7): Tracehook as a gateway in front of an anvil node, against
// the same anvil asked directly, in one run: trace_transaction and debug_traceTransaction
// (callTracer) cold (the first request for each transaction) and warm (repeated: Tracehook's
// finality-aware cache answers), and distinct eth_calls no cache can answer, as ratios.
//
//   npm run build && npx tsx bench/upstream.bench.ts [--txs 400] [--duration 5] [--connections 8] [--source] [--only TEXT] [--cpu-prof DIR]
//
// `--only TEXT` runs only the rows whose name contains TEXT; `--cpu-prof DIR` writes tracehook's
// V8 CPU profile into DIR (summarise it with bench/cpuProfileSummary.ts).
//
// One anvil holds the chain (the deployment of an ERC-20 and `--txs` transfers). Tracehook runs as
// its own process (the real CLI, `tracehook start --upstream <anvil>`), the load generator in a
// third. Cold rows use disjoint fifths of the transfers for the two paths, so neither path is
// answered from what the other asked anvil first (the last fifth warms tracehook's JIT up first); anvil's blocks are final at once here
// (`finalized` = head on a dev node), so Tracehook may cache every trace it gets.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keccak256 } from 'viem';
import { startAnvil } from '../src/testing/startAnvil.js';
import { spawnTracehook } from '../src/testing/spawnTracehook.js';
import { failedRequests, runLoadInChild, type LoadResult, type LoadSpec } from './loadGenerator.js';
import { benchAccount, numberArg, signedErc20Transactions, tokenAddress, transferData } from './erc20Workload.js';
import { rpc, rpcBody as body } from './benchRpc.js';

const TXS = numberArg('txs', 400);
const DURATION_MS = numberArg('duration', 5) * 1000;
const CONNECTIONS = numberArg('connections', 8);
const FROM_SOURCE = process.argv.includes('--source');
const onlyIndex = process.argv.indexOf('--only');
const ONLY = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined;
const cpuProfIndex = process.argv.indexOf('--cpu-prof');
const CPU_PROF_DIR = cpuProfIndex > 0 ? process.argv[cpuProfIndex + 1] : undefined;

/** CPU time (user + system) a process has used so far, in µs (Linux: /proc/<pid>/stat, 100 ticks/s). */
function cpuMicros(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}


async function main(): Promise<void> {
  const anvil = await startAnvil();
  const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-upstream-bench-'));
  const raws = await signedErc20Transactions(TXS);
  for (const raw of raws) await rpc(anvil.url, 'eth_sendRawTransaction', [raw]);
  const deadline = Date.now() + 20_000;
  while (Number(await rpc(anvil.url, 'eth_getTransactionCount', [benchAccount.address, 'latest'])) !== raws.length) {
    if (Date.now() > deadline) throw new Error('anvil did not mine the workload');
    await new Promise((r) => setTimeout(r, 50));
  }
  const tracehook = await spawnTracehook({ dataDir, args: ['--log-level', 'warn', '--upstream', anvil.url], from: FROM_SOURCE ? 'source' : 'build',
    nodeArgs: CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : [],
  });
  try {
    const transfers = raws.slice(1).map((raw) => keccak256(raw));
    // Five parts: cold rows use one each (the two paths never trace the same transaction first),
    // the fifth warms tracehook's JIT up on the same methods before anything is measured.
    const fifth = Math.floor(transfers.length / 5);
    const part = (i: number) => transfers.slice(i * fifth, (i + 1) * fifth);
    const once = (bodies: string[]): Omit<LoadSpec, 'url'> => ({ body: '', bodies, once: true, connections: CONNECTIONS, durationMs: 0, warmupMs: 0 });
    const timed = (bodies: string[]): Omit<LoadSpec, 'url'> => ({ body: '', bodies, connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 });
    const tt = (hashes: string[]) => hashes.map((h) => body('trace_transaction', [h]));
    const dtt = (hashes: string[]) => hashes.map((h) => body('debug_traceTransaction', [h, { tracer: 'callTracer' }]));

    // Distinct calls (another recipient and amount each), so no cache can answer them.
    const calls = Array.from({ length: 20_000 }, (_, i) => body('eth_call', [{ from: benchAccount.address, to: tokenAddress, data: transferData(100_000 + i) }, 'latest']));
    // Warm-up (not measured): tracehook's code paths compiled before the cold rows.
    await runLoadInChild({ ...once([...tt(part(4)), ...dtt(part(4)), ...calls.slice(-2000)]), url: tracehook.rpcUrl });
    // The answers through Tracehook are anvil's own: checked once per method before timing.
    const sample = transfers.at(-1)!;
    for (const [method, params] of [['trace_transaction', [sample]], ['debug_traceTransaction', [sample, { tracer: 'callTracer' }]]] as const) {
      const [via, direct] = await Promise.all([rpc(tracehook.rpcUrl, method, [...params]), rpc(anvil.url, method, [...params])]);
      if (JSON.stringify(via) !== JSON.stringify(direct)) throw new Error(`${method}: tracehook's answer differs from anvil's`);
    }
    // [name, tracehook spec, anvil spec]: cold rows give the two paths different transactions.
    const rows: [string, Omit<LoadSpec, 'url'>, Omit<LoadSpec, 'url'>][] = [
      ['eth_blockNumber (HTTP floor)', timed([body('eth_blockNumber', [])]), timed([body('eth_blockNumber', [])])],
      [`trace_transaction, cold (${fifth} txs once)`, once(tt(part(0))), once(tt(part(1)))],
      [`debug_traceTransaction callTracer, cold (${fifth} txs once)`, once(dtt(part(2))), once(dtt(part(3)))],
      ['trace_transaction, warm', timed(tt(transfers)), timed(tt(transfers))],
      ['debug_traceTransaction callTracer, warm', timed(dtt(transfers)), timed(dtt(transfers))],
      ['eth_call, distinct calls', timed(calls), timed(calls)],
    ];
    console.log(`\nUpstream benchmark: ${TXS} ERC-20 transfers on one anvil; tracehook (from ${FROM_SOURCE ? 'source' : 'the build'}) with --upstream in front of it against the same anvil directly; ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per timed row.\n`);
    // CPU per request (tracehook's process, and anvil's for both paths) does not depend on what
    // else the machine runs, unlike req/s: it is the figure to compare across runs.
    console.log('| workload | via tracehook req/s | anvil direct req/s | ratio | tracehook p50 / p99 ms | anvil p50 / p99 ms | tracehook CPU µs/req | anvil CPU µs/req (via / direct) | non-200 or errors (th / anvil) |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const perRequest = (before: number, after: number, l: LoadResult) => (l.answered > 0 ? Math.round((after - before) / l.answered) : 0);
    for (const [name, viaSpec, directSpec] of rows.filter(([name]) => ONLY === undefined || name.includes(ONLY))) {
      const [t0, a0] = [cpuMicros(tracehook.child.pid), cpuMicros(anvil.child.pid)];
      const via = await runLoadInChild({ ...viaSpec, url: tracehook.rpcUrl });
      const [t1, a1] = [cpuMicros(tracehook.child.pid), cpuMicros(anvil.child.pid)];
      const direct = await runLoadInChild({ ...directSpec, url: anvil.url });
      const a2 = cpuMicros(anvil.child.pid);
      const cpu = `${perRequest(t0, t1, via)} | ${perRequest(a0, a1, via)} / ${perRequest(a1, a2, direct)}`;
      console.log(`| ${name} | ${via.rps} | ${direct.rps} | ${(via.rps / direct.rps).toFixed(2)} | ${via.p50Ms} / ${via.p99Ms} | ${direct.p50Ms} / ${direct.p99Ms} | ${cpu} | ${failedRequests(via)} / ${failedRequests(direct)} |`);
    }
  } finally {
    await tracehook.kill('SIGTERM');
    await anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
