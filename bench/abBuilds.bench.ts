// Two builds of tracehook on one workload, compared in interleaved bursts: both run at once (each
// its own process and chain, the same signed transactions mined), and short bursts of load go to
// one and then the other in the order A B B A, A B B A, ..., so a machine whose speed drifts by
// ±30% from minute to minute (a shared host) still gives each pair of neighbouring bursts the
// same conditions. Prints every burst and the median, lowest and highest B/A ratio of the rate
// and of the service's CPU per answer (all its threads, from /proc). A change of a few percent
// that the single-run rows of traces.bench.ts cannot show shows here as a consistent ratio.
//
//   npx tsx bench/abBuilds.bench.ts --a DIR --b DIR [--workload traceCall] [--pairs 8] [--burst 2]
//     [--txs 200] [--connections 8] [--a-node-args "<flags>"] [--b-node-args "<flags>"]
//
// DIR is a checkout with its dist/ built (`npm run build`): `--a ../base --b .` compares another
// worktree with this one; the same DIR twice with different `--*-node-args` compares Node/V8 flags,
// and the same DIR twice with nothing else is the A/A check of how far the method can be trusted.
// Workloads: traceCall (debug_traceCall callTracer, distinct calls), ethCall, estimateGas (the same
// distinct calls), traceTransaction (trace_transaction of the mined transfers, repeated: warm),
// blockNumber (the HTTP floor).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { encodeFunctionData, keccak256, type Hex } from 'viem';
import { spawnTracehook, type TracehookProcess } from '../src/testing/spawnTracehook.js';
import { threadCpuUs } from './threadCpu.js';
import { failedRequests, runLoadInChild } from './loadGenerator.js';
import { benchAccount, numberArg, recipient, signedErc20Transactions, token, tokenAddress } from './erc20Workload.js';
import { rpc, rpcBody as body } from './benchRpc.js';

function textArg(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : undefined;
}

const A_DIR = textArg('a');
const B_DIR = textArg('b');
if (!A_DIR || !B_DIR) {
  console.error('usage: npx tsx bench/abBuilds.bench.ts --a DIR --b DIR [--workload traceCall] [--pairs 8] [--burst 2] [--txs 200]');
  process.exit(2);
}
const WORKLOAD = textArg('workload') ?? 'traceCall';
const PAIRS = numberArg('pairs', 8);
const BURST_MS = numberArg('burst', 2) * 1000;
const TXS = numberArg('txs', 200);
const CONNECTIONS = numberArg('connections', 8);
const nodeArgs = (side: 'a' | 'b') => (textArg(`${side}-node-args`) ?? '').split(' ').filter(Boolean);

/** The bodies the workload sends, round-robin. */
function workloadBodies(raws: Hex[]): string[] {
  const calls = (method: string, paramsFor: (call: object) => unknown[]) =>
    Array.from({ length: 20_000 }, (_, i) => {
      const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [recipient(100_000 + i), BigInt(i + 1)] });
      return body(method, paramsFor({ from: benchAccount.address, to: tokenAddress, data, gas: '0x186a0' }));
    });
  switch (WORKLOAD) {
    case 'traceCall':
      return calls('debug_traceCall', (call) => [call, 'latest', { tracer: 'callTracer' }]);
    case 'ethCall':
      return calls('eth_call', (call) => [call, 'latest']);
    case 'estimateGas':
      return calls('eth_estimateGas', (call) => [call, 'latest']);
    case 'traceTransaction':
      return raws.slice(1).map((raw) => body('trace_transaction', [keccak256(raw)]));
    case 'blockNumber':
      return [body('eth_blockNumber', [])];
    default:
      throw new Error(`unknown --workload ${WORKLOAD}: traceCall, ethCall, estimateGas, traceTransaction or blockNumber`);
  }
}

interface Side {
  name: 'A' | 'B';
  dataDir: string;
  service: TracehookProcess;
}

async function startSide(name: 'A' | 'B', dir: string, raws: Hex[]): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), `tracehook-ab-${name}-`));
  const service = await spawnTracehook({ dataDir, from: 'build', entry: join(resolve(dir), 'bin', 'tracehook.js'), args: ['--log-level', 'warn'], nodeArgs: nodeArgs(name === 'A' ? 'a' : 'b') });
  for (const raw of raws) await rpc(service.rpcUrl, 'eth_sendRawTransaction', [raw]);
  const deadline = Date.now() + 60_000;
  while (Number(await rpc(service.rpcUrl, 'eth_getTransactionCount', [benchAccount.address, 'latest'])) !== raws.length) {
    if (Date.now() > deadline) throw new Error(`${name} did not mine ${raws.length} transactions`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return { name, dataDir, service };
}

interface Burst {
  rps: number;
  cpuUsPerAnswer: number;
}

async function burst(side: Side, bodies: string[]): Promise<Burst> {
  const pid = side.service.child.pid!;
  const sum = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const before = sum(threadCpuUs(pid));
  const result = await runLoadInChild({ url: side.service.rpcUrl, body: '', bodies, connections: CONNECTIONS, durationMs: BURST_MS, warmupMs: 300 });
  const cpu = sum(threadCpuUs(pid)) - before;
  if (failedRequests(result) > 0) throw new Error(`${side.name}: ${failedRequests(result)} failed requests`);
  return { rps: result.rps, cpuUsPerAnswer: Math.round(cpu / Math.max(1, result.answered)) };
}

function summary(label: string, ratios: number[]): string {
  const sorted = [...ratios].sort((x, y) => x - y);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return `${label}: median ${median.toFixed(3)}, lowest ${sorted[0]!.toFixed(3)}, highest ${sorted.at(-1)!.toFixed(3)} (${ratios.length} pairs)`;
}

async function main(): Promise<void> {
  const raws = await signedErc20Transactions(TXS);
  const bodies = workloadBodies(raws);
  const a = await startSide('A', A_DIR!, raws);
  const b = await startSide('B', B_DIR!, raws);
  try {
    // One burst each to warm both up (JIT, caches), not counted.
    await burst(a, bodies);
    await burst(b, bodies);
    const rateRatios: number[] = [];
    const cpuRatios: number[] = [];
    console.log(`| pair | A answers/s | B answers/s | B/A rate | A CPU µs/answer | B CPU µs/answer | B/A CPU |`);
    console.log(`| ---: | ---: | ---: | ---: | ---: | ---: | ---: |`);
    for (let pair = 0; pair < PAIRS; pair++) {
      // A B, then B A: each side is as often first as second.
      const first = pair % 2 === 0 ? a : b;
      const second = first === a ? b : a;
      const results = new Map<Side, Burst>([[first, await burst(first, bodies)], [second, await burst(second, bodies)]]);
      const ra = results.get(a)!;
      const rb = results.get(b)!;
      rateRatios.push(rb.rps / ra.rps);
      cpuRatios.push(rb.cpuUsPerAnswer / ra.cpuUsPerAnswer);
      console.log(`| ${pair + 1} | ${ra.rps} | ${rb.rps} | ${(rb.rps / ra.rps).toFixed(3)} | ${ra.cpuUsPerAnswer} | ${rb.cpuUsPerAnswer} | ${(rb.cpuUsPerAnswer / ra.cpuUsPerAnswer).toFixed(3)} |`);
    }
    console.log(`\n${WORKLOAD}, ${CONNECTIONS} connections, ${BURST_MS / 1000} s bursts; A = ${A_DIR} ${nodeArgs('a').join(' ')}, B = ${B_DIR} ${nodeArgs('b').join(' ')}`);
    console.log(summary('B/A rate', rateRatios));
    console.log(summary('B/A CPU per answer', cpuRatios));
  } finally {
    for (const side of [a, b]) {
      await side.service.kill('SIGTERM');
      rmSync(side.dataDir, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
