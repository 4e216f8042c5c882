// Trace benchmark: mining throughput (eth_sendRawTransaction with automine), then traces per second
// and p50/p99 latency of debug_traceTransaction (callTracer), trace_transaction, trace_call and
// debug_traceCall (and eth_call and eth_estimateGas of the same distinct calls) on the embedded
// chain, side by side with anvil holding the same chain under the same load, in one run, as
// ratios. Mined-transaction figures are given cold (the first request for each transaction), once
// in a process that has served no trace yet and once after the other rows, and warm (repeated
// requests).
//
//   npm run build && npx tsx bench/traces.bench.ts [--txs 200] [--duration 5] [--connections 8] [--source] [--cpu-prof DIR]
//     [--only TEXT] [--no-anvil] [--no-kept-records] [--service-args "<tracehook flags>"] [--node-args "<node flags>"]
//     [--thread-cpu] [--prime-ms 1000] [--profile]
//
// A cold row's connections are opened and carry eth_chainId for `--prime-ms` before its counted
// requests, on both peers, so the row measures its requests rather than connection set-up.
// `--thread-cpu` prints, for each tracehook row, the service's CPU µs per answer (warm-up included)
// on its main thread, its busiest other thread (the trace worker) and all its threads, from /proc.
// `--no-kept-records` starts tracehook with `--mined-trace-memory-mb 0`, so a cold trace of a mined
// transaction is a replay of its block (as after a restart), not the miner's kept record rendered.
// tracehook runs from the compiled build (bin/tracehook.js over dist/, as `npm start`); `--source`
// runs src/ through tsx instead, `--cpu-prof DIR` writes the service's V8 CPU profile into DIR.
// `--profile` (into `--cpu-prof DIR`, else a temporary folder) prints after the table where each
// row's time went in the service: each thread's busy share of the row's counted window and its
// largest code areas by self time (bench/rowProfiles.ts); the sampling slows the service a little.
// Both peers get the same signed transactions (an ERC-20 deployment, then transfers), so they hold
// the same chain. tracehook runs as its own process (the real CLI), the load generator in a third.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeFunctionData, keccak256, type Hex } from 'viem';
import { startAnvil } from '../src/testing/startAnvil.js';
import { spawnTracehook } from '../src/testing/spawnTracehook.js';
import { cpuPerAnswer, threadCpuUs } from './threadCpu.js';
import { failedRequests, runLoadInChild, type LoadResult, type LoadSpec } from './loadGenerator.js';
import { benchAccount, numberArg, recipient, signedErc20Transactions, token, tokenAddress } from './erc20Workload.js';
import { rpc, rpcBody as body } from './benchRpc.js';
import { monotonicUs } from './cpuProfile.js';
import { printRowProfiles, type RowWindow } from './rowProfiles.js';

const account = benchAccount;
const arg = numberArg;
const TXS = arg('txs', 200);
const DURATION_MS = arg('duration', 5) * 1000;
const CONNECTIONS = arg('connections', 8);
const FROM_SOURCE = process.argv.includes('--source');
const cpuProfIndex = process.argv.indexOf('--cpu-prof');
const PROFILE = process.argv.includes('--profile');
const CPU_PROF_DIR = cpuProfIndex > 0 ? process.argv[cpuProfIndex + 1] : PROFILE ? mkdtempSync(join(tmpdir(), 'tracehook-profile-')) : undefined;
const onlyIndex = process.argv.indexOf('--only');
/** Runs only the workloads whose name contains this text (profiling one workload). */
const ONLY = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined;
const WITH_ANVIL = !process.argv.includes('--no-anvil');
const KEPT_RECORDS = !process.argv.includes('--no-kept-records');
const serviceArgsIndex = process.argv.indexOf('--service-args');
/** More tracehook flags, split on spaces (e.g. `--trace-workers 1`). */
const SERVICE_ARGS = serviceArgsIndex > 0 ? process.argv[serviceArgsIndex + 1]!.split(' ').filter(Boolean) : [];
const THREAD_CPU = process.argv.includes('--thread-cpu');
const nodeArgsIndex = process.argv.indexOf('--node-args');
/** Node/V8 flags for the tracehook process, split on spaces (e.g. `--single-threaded-gc`). */
const NODE_ARGS = nodeArgsIndex > 0 ? process.argv[nodeArgsIndex + 1]!.split(' ').filter(Boolean) : [];
/** How long a cold row's connections carry eth_chainId before its counted requests (`--prime-ms 0`: none). */
const PRIME_MS = arg('prime-ms', 1000);

/** Signs the deployment and TXS transfers once; both peers get the same bytes. */
async function signedTransactions(): Promise<{ raws: Hex[]; tokenAddress: Hex }> {
  return { raws: await signedErc20Transactions(TXS), tokenAddress };
}

interface Row {
  name: string;
  tracehook: LoadResult;
  /** `unsupported`: anvil answers -32601; `skipped`: --no-anvil. */
  anvil: LoadResult | 'unsupported' | 'skipped';
}

function printRows(rows: Row[]): void {
  console.log('| workload | tracehook traces/s | anvil traces/s | ratio | tracehook p50 / p99 ms | anvil p50 / p99 ms | non-200 (th / anvil) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const a = typeof r.anvil === 'string' ? undefined : r.anvil;
    const none = r.anvil === 'unsupported' ? 'n/a (-32601)' : '—';
    console.log(
      `| ${r.name} | ${r.tracehook.rps} | ${a ? a.rps : none} | ${a ? (r.tracehook.rps / a.rps).toFixed(2) : '—'} | ${r.tracehook.p50Ms} / ${r.tracehook.p99Ms} | ${a ? `${a.p50Ms} / ${a.p99Ms}` : '—'} | ${failedRequests(r.tracehook)} / ${a ? failedRequests(a) : '—'} |`,
    );
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-bench-'));
  const anvil = await startAnvil();
  const tracehook = await spawnTracehook({
    dataDir,
    args: ['--log-level', 'warn', ...(KEPT_RECORDS ? [] : ['--mined-trace-memory-mb', '0']), ...SERVICE_ARGS],
    from: FROM_SOURCE ? 'source' : 'build',
    nodeArgs: [...NODE_ARGS, ...(CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : []), ...(PROFILE ? ['--cpu-prof-interval', '250'] : [])],
  });
  const windows: RowWindow[] = [];
  const windowOf = (name: string, result: LoadResult) => windows.push({ name, fromUs: result.windowUs.from, toUs: result.windowUs.to });
  try {
    const { raws, tokenAddress } = await signedTransactions();
    const hashes = raws.map((raw) => keccak256(raw));
    // Mining: every signed transaction once, in nonce order on one connection (automine: one block each).
    const mining = (url: string) => runLoadInChild({ url, body: '', bodies: raws.map((raw) => body('eth_sendRawTransaction', [raw])), once: true, connections: 1, durationMs: 0, warmupMs: 0 });
    // anvil answers eth_sendRawTransaction before its automined block is in (and, when it falls
    // behind, puts several transactions in a block): the second row counts until the last is mined.
    const minedThrough = async (url: string): Promise<{ sent: LoadResult; untilMined: LoadResult }> => {
      const sent = await mining(url);
      const deadline = Date.now() + 60_000;
      let mined = 0;
      while ((mined = Number(await rpc(url, 'eth_getTransactionCount', [account.address, 'latest']))) !== raws.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      if (mined !== raws.length) throw new Error(`${url} mined ${mined} of ${raws.length} transactions`);
      const blocks = Number(await rpc(url, 'eth_blockNumber', []));
      const rps = Math.round(raws.length / ((Date.now() - sent.startedAtEpochMs) / 1000));
      console.log(`${url === anvil.url ? 'anvil' : 'tracehook'}: ${raws.length} transactions in ${blocks} blocks`);
      return { sent, untilMined: { ...sent, rps, windowUs: { from: sent.windowUs.from, to: monotonicUs() } } };
    };
    const cpuBeforeMining = threadCpuUs(tracehook.child.pid!);
    const minedTracehook = await minedThrough(tracehook.rpcUrl);
    const miningCpu = cpuPerAnswer(tracehook.child.pid!, cpuBeforeMining, threadCpuUs(tracehook.child.pid!), raws.length);
    windowOf('automine, until the last is mined', minedTracehook.untilMined);
    const minedAnvil = await minedThrough(anvil.url);
    const rows: Row[] = [
      { name: `eth_sendRawTransaction with automine (${raws.length} txs, 1 connection)`, tracehook: minedTracehook.sent, anvil: minedAnvil.sent },
      { name: `  the same, until the last is mined (tx/s; latencies as above)`, tracehook: minedTracehook.untilMined, anvil: minedAnvil.untilMined },
    ];
    const transfers = hashes.slice(1);
    // Thirds: each cold row traces its own third once; the warm rows repeat the first two thirds;
    // the last cold row traces the third nothing has asked for yet, after the rows above have run
    // every code path it needs (the first cold rows also measure a fresh process's JIT warm-up).
    const third = Math.floor(transfers.length / 3);
    // Distinct calls (different recipient and amount each), so no cache can answer them.
    const callBodies = (method: string, paramsFor: (call: object) => unknown[]) =>
      Array.from({ length: 20_000 }, (_, i) => {
        const data = encodeFunctionData({ abi: token.abi, functionName: 'transfer', args: [recipient(100_000 + i), BigInt(i + 1)] });
        return body(method, paramsFor({ from: account.address, to: tokenAddress, data, gas: '0x186a0' }));
      });

    // A cold row sends each body once, after its connections have carried eth_chainId for PRIME_MS:
    // rows of a few hundred requests otherwise measure opening 8 connections and a load generator's
    // own start-up more than the requests they name (docs/performance.md, session 15).
    const once = (bodies: string[]): Omit<LoadSpec, 'url'> => ({ body: body('eth_chainId', []), bodies, once: true, primeMs: PRIME_MS, connections: CONNECTIONS, durationMs: 0, warmupMs: 0 });
    const workloads: { name: string; spec: Omit<LoadSpec, 'url'>; anvil: boolean }[] = [
      // The floor every answer pays (HTTP, key check, decode, encode): no trace can be faster.
      { name: 'eth_blockNumber (HTTP floor, not a trace)', anvil: true, spec: { body: body('eth_blockNumber', []), connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 } },
      { name: `debug_traceTransaction callTracer, cold (${third} txs once)`, anvil: true, spec: once(transfers.slice(0, third).map((h) => body('debug_traceTransaction', [h, { tracer: 'callTracer' }]))) },
      { name: `trace_transaction, cold (${third} txs once)`, anvil: true, spec: once(transfers.slice(third, 2 * third).map((h) => body('trace_transaction', [h]))) },
      { name: 'debug_traceTransaction callTracer, warm', anvil: true, spec: { body: '', bodies: transfers.slice(0, 2 * third).map((h) => body('debug_traceTransaction', [h, { tracer: 'callTracer' }])), connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 } },
      { name: 'trace_transaction, warm', anvil: true, spec: { body: '', bodies: transfers.slice(0, 2 * third).map((h) => body('trace_transaction', [h])), connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 } },
      { name: `trace_transaction, cold after the rows above (${transfers.length - 2 * third} txs once)`, anvil: true, spec: once(transfers.slice(2 * third).map((h) => body('trace_transaction', [h]))) },
      { name: 'debug_traceCall callTracer, distinct calls', anvil: true, spec: { body: '', bodies: callBodies('debug_traceCall', (call) => [call, 'latest', { tracer: 'callTracer' }]), connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 } },
      { name: 'trace_call ["trace"], distinct calls', anvil: false, spec: { body: '', bodies: callBodies('trace_call', (call) => [call, ['trace'], 'latest']), connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 } },
      // Not traces, but the same execution path (a worker job on the interpreter): what a wallet sends.
      { name: 'eth_call, distinct calls', anvil: true, spec: { body: '', bodies: callBodies('eth_call', (call) => [call, 'latest']), connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 } },
      { name: 'eth_estimateGas, distinct calls', anvil: true, spec: { body: '', bodies: callBodies('eth_estimateGas', (call) => [call, 'latest']), connections: CONNECTIONS, durationMs: DURATION_MS, warmupMs: 1000 } },
    ];
    // Blocking: latency of a cheap call on one connection while distinct traced calls load the others.
    const blocking = async (url: string): Promise<LoadResult> => {
      const spec = { connections: 1, durationMs: DURATION_MS, warmupMs: 1000 };
      const [probe] = await Promise.all([
        runLoadInChild({ ...spec, url, body: body('eth_blockNumber', []) }),
        runLoadInChild({ ...spec, url, body: '', bodies: callBodies('debug_traceCall', (call) => [call, 'latest', { tracer: 'callTracer' }]), connections: CONNECTIONS }),
      ]);
      return probe;
    };
    const blockingName = `eth_blockNumber on 1 connection while debug_traceCall loads ${CONNECTIONS} (blocking)`;
    const threadRows: string[] = [`| automine (until mined) | ${raws.length} | ${miningCpu.mainUs} | ${miningCpu.busiestOtherUs} | ${miningCpu.allUs} | ${miningCpu.threads} |`];
    for (const w of workloads) {
      if (ONLY && !w.name.includes(ONLY)) continue;
      const pid = tracehook.child.pid!;
      const before = threadCpuUs(pid);
      const th = await runLoadInChild({ ...w.spec, url: tracehook.rpcUrl });
      windowOf(w.name, th);
      if (THREAD_CPU) {
        const cpu = cpuPerAnswer(pid, before, threadCpuUs(pid), th.answered);
        threadRows.push(`| ${w.name} | ${th.answered} | ${cpu.mainUs} | ${cpu.busiestOtherUs} | ${cpu.allUs} | ${cpu.threads} |`);
      }
      const an = !w.anvil ? 'unsupported' : WITH_ANVIL ? await runLoadInChild({ ...w.spec, url: anvil.url }) : 'skipped';
      rows.push({ name: w.name, tracehook: th, anvil: an });
    }
    if (!ONLY || blockingName.includes(ONLY)) {
      const th = await blocking(tracehook.rpcUrl);
      windowOf(blockingName, th);
      rows.push({ name: blockingName, tracehook: th, anvil: WITH_ANVIL ? await blocking(anvil.url) : 'skipped' });
    }
    console.log(
      `\nTrace benchmark: ${TXS} ERC-20 transfers mined on both peers, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per warm workload, tracehook from ${FROM_SOURCE ? 'source (tsx)' : 'the build'}.\n`,
    );
    printRows(rows);
    if (THREAD_CPU) {
      console.log('\n| workload | answers | main thread µs/answer | busiest other thread µs/answer | all threads µs/answer | threads µs/answer |\n| --- | ---: | ---: | ---: | ---: | --- |');
      for (const line of threadRows) console.log(line);
    }
  } finally {
    await tracehook.kill('SIGTERM');
    await anvil.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  // Each thread writes its profile as the service exits.
  if (PROFILE) printRowProfiles(CPU_PROF_DIR!, windows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
