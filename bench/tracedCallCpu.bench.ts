// CPU time per traced call and per cold replay on the code path a trace worker runs (a read-only
// chain reader, the tracer, runTraceJob), in-process, no HTTP and no worker hop: steadier than the
// HTTP rows of traces.bench.ts on a shared machine, since it counts CPU time, not wall time.
//
//   npx tsx bench/tracedCallCpu.bench.ts [--txs 400] [--calls 3000] [--no-cold] [--no-calls] [--trace-call | --struct-logger | --vm-trace]
//     [--estimates 0]
//
// Calls are rendered by callTracer (debug_traceCall's), by trace_call's ["trace"] with
// --trace-call, by geth's struct logger (debug_traceCall with no tracer, default config) with
// --struct-logger, or by trace_call's ["vmTrace"] with --vm-trace. TRACEHOOK_FAST_EVM=0 runs them
// on ethereumjs instead of the interpreter. `--estimates N` also times N eth_estimateGas jobs of
// distinct transfers (a worker's `estimateGas` job: the binary search's runs, no HTTP).
//
// The chain is the traces bench's (an ERC-20 deployment, then transfers, one per block); calls are
// distinct transfers on the head, cold replays are callTracer traces of the mined transfers.
import { rmSync } from 'node:fs';
import { hexToBytes } from 'viem';
import { openChainReader } from '../src/engine/chain/chainReader.js';
import { callEnvOfReader } from '../src/engine/chain/callExecution.js';
import { createDevChain } from '../src/engine/chain/devChain.js';
import { makeTempDir } from '../src/engine/chain/testing/tempChain.js';
import { createTracer } from '../src/engine/trace/createTracer.js';
import { runTraceJob } from '../src/engine/trace/traceJob.js';
import type { TraceRender } from '../src/engine/trace/traceRender.js';
import { benchAccount as account, numberArg, signedErc20Transactions, tokenAddress, transferData as transfer } from './erc20Workload.js';

const TXS = numberArg('txs', 400);
const CALLS = numberArg('calls', 3000);
const ESTIMATES = numberArg('estimates', 0);
const render: TraceRender = process.argv.includes('--trace-call')
  ? { format: 'parityResults', types: ['trace'] }
  : process.argv.includes('--struct-logger')
    ? { format: 'geth', request: { tracer: 'structLogger', config: {} } }
    : process.argv.includes('--vm-trace')
      ? { format: 'parityResults', types: ['vmTrace'] }
      : { format: 'geth', request: { tracer: 'callTracer', config: {} } };

const dataDir = makeTempDir('tracehook-bench-');
const chain = await createDevChain({ dataDir });
for (const raw of await signedErc20Transactions(TXS)) await chain.sendRawTransaction(hexToBytes(raw));
await chain.close();

const reader = openChainReader({ dataDir, chainId: 31337n, hardfork: 'prague' });
const tracer = createTracer({ chain: reader, gasCap: 50_000_000n });
const head = (await reader.getBlockByNumber(reader.headNumber()))!;

/** CPU µs (all threads of the process) per item of `run`. */
async function cpuPerItem(items: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < items; i++) await run(i);
  const used = process.cpuUsage(start);
  return Math.round((used.user + used.system) / items);
}

const from = hexToBytes(account.address);
const to = hexToBytes(tokenAddress);
/** Transfer call data for items 0..count-1 (made before the clock starts: ABI encoding is the client's work). */
const transfers = (first: number, count: number) => Array.from({ length: count }, (_, i) => hexToBytes(transfer(first + i)));
const WARM_UP_CALLS = 500;
const callData = transfers(100_000, CALLS + WARM_UP_CALLS);
const call = (i: number) =>
  runTraceJob(tracer, { kind: 'calls', blockHash: head.hash(), stateRoot: head.header.stateRoot, timeoutMs: 10_000, calls: [{ call: { from, to, data: callData[i]! }, render }] });
async function replay(number: number) {
  const block = (await reader.getBlockByNumber(BigInt(number)))!;
  const context = { logIndexOffset: 0, blockHash: block.hash(), blockNumber: block.header.number, txHash: block.transactions[0]!.hash(), txIndex: 0 };
  return runTraceJob(tracer, { kind: 'transaction', blockHash: block.hash(), index: 0, render, timeoutMs: 10_000, context });
}

const result: Record<string, number> = {};
if (!process.argv.includes('--no-cold')) {
  const half = Math.floor(TXS / 2);
  result.coldFirstHalfUs = await cpuPerItem(half, (i) => replay(2 + i));
  result.coldSecondHalfUs = await cpuPerItem(TXS - half, (i) => replay(2 + half + i));
}
if (!process.argv.includes('--no-calls')) {
  await cpuPerItem(WARM_UP_CALLS, (i) => call(CALLS + i));
  result.distinctCallUs = await cpuPerItem(CALLS, call);
}
if (ESTIMATES > 0) {
  const calls = callEnvOfReader(reader, 50_000_000n);
  const estimateData = transfers(200_000, ESTIMATES + 200);
  const estimate = (i: number) =>
    runTraceJob(tracer, { kind: 'estimateGas', blockHash: head.hash(), stateRoot: head.header.stateRoot, timeoutMs: 10_000, request: { from, to, data: estimateData[i]! } }, { calls });
  await cpuPerItem(200, (i) => estimate(ESTIMATES + i));
  result.estimateGasUs = await cpuPerItem(ESTIMATES, estimate);
}
console.log(JSON.stringify(result));
reader.close();
rmSync(dataDir, { recursive: true, force: true });
