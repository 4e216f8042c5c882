// eth_call of loops, in Mgas/s: the embedded chain's call path (in-process, under its guard) on the
// synchronous interpreter and on ethereumjs (TRACEHOOK_FAST_EVM=0), and anvil (revm) over HTTP in
// the same run. The loop code is given by state override at an empty address on both peers.
//
//   npx tsx bench/engineLoop.bench.ts [--iterations 100000] [--runs 5] [--no-anvil] [--no-ethereumjs] [--only keccak|storage] [--profile]
//
// `--profile` prints after the table where the interpreter's time goes in each loop: the largest
// code areas and functions by self time over `runs` more calls, profiled (bench/inProcessProfile.ts).
// The last column divides by the CPU time this process spent (all its threads), so a machine busy
// with other work moves it less than the wall-clock columns. `--no-ethereumjs` and `--only` leave
// out the slow engine and the other loop, to time or profile one loop on the interpreter
// (`node --cpu-prof --import tsx bench/engineLoop.bench.ts ...`).
//
// Workloads: an arithmetic/keccak loop (MSTORE, KECCAK256, MUL, ADD per round, 91 gas) and a
// warm-storage loop (SLOAD + SSTORE of one slot per round, 236 gas, n/2.5 rounds). Each figure is
// the median of `runs` calls after warm-up calls (5, 1 for ethereumjs, whose JIT state does not
// move it); the gas per call is worked out from the code
// (intrinsic 21,000, PUSH3, the rounds; the storage loop's first SLOAD is cold and its first SSTORE
// sets a zero slot) and is the same on every engine.
import { rmSync } from 'node:fs';
import { createDevChain } from '../src/engine/chain/devChain.js';
import type { StateOverrides } from '../src/engine/chain/stateOverrides.js';
import { makeTempDir } from '../src/engine/chain/testing/tempChain.js';
import { startAnvil } from '../src/testing/startAnvil.js';
import { numberArg } from './erc20Workload.js';
import { profileWhile, summarizeProfile } from './inProcessProfile.js';

const ITERATIONS = numberArg('iterations', 100_000);
const RUNS = numberArg('runs', 5);
const withAnvil = !process.argv.includes('--no-anvil');
const withEthereumjs = !process.argv.includes('--no-ethereumjs');
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex > 0 ? process.argv[onlyIndex + 1] : undefined;
const withProfile = process.argv.includes('--profile');
const TARGET = '0x00000000000000000000000000000000000b0b0b';

function push3(n: number): string {
  return '62' + n.toString(16).padStart(6, '0');
}

const workloads = [
  // PUSH3 n; JUMPDEST; DUP1 PUSH0 MSTORE; PUSH1 32 PUSH0 KECCAK256; DUP2 MUL PUSH1 7 ADD POP; PUSH1 1 SWAP1 SUB; DUP1 PUSH1 4 JUMPI; STOP
  { key: 'keccak', name: 'arithmetic/keccak loop', code: (n: number) => push3(n) + '5b805f5260205f2081026007015060019003806004' + '5700', gas: (n: number) => 21_003 + 91 * n },
  // PUSH3 n; JUMPDEST; PUSH0 SLOAD PUSH1 1 ADD PUSH0 SSTORE; PUSH1 1 SWAP1 SUB; DUP1 PUSH1 4 JUMPI; STOP
  { key: 'storage', name: 'warm-storage loop', code: (n: number) => push3(rounds(n)) + '5b5f546001015f5560019003806004' + '5700', gas: (n: number) => 21_003 + 236 * rounds(n) + 21_800 },
];

function rounds(n: number): number {
  return Math.floor(n / 2.5);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median wall time of `runs` calls, and the median of this process's CPU time (all threads) over each. */
async function timeRuns(run: () => Promise<unknown>, warmUps: number): Promise<{ wallMs: number; cpuMs: number }> {
  for (let i = 0; i < warmUps; i++) await run();
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuStarted);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
  }
  return { wallMs: median(times), cpuMs: median(cpuTimes) };
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

const dataDir = makeTempDir('tracehook-bench-');
const chain = await createDevChain({ dataDir, callTimeoutMs: 600_000 });
const anvil = withAnvil ? await startAnvil(['--silent', '--gas-limit', '1000000000']) : undefined;
try {
  const block = (await chain.getBlockByNumber(chain.headNumber()))!;
  console.log(`eth_call, ${ITERATIONS} rounds per call (median of ${RUNS}); shared machine, noisy figures`);
  console.log('| workload | gas per call | interpreter Mgas/s | ethereumjs Mgas/s | anvil Mgas/s | interpreter/ethereumjs | interpreter/anvil | interpreter Mgas per CPU-s |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const profiles: string[] = [];
  for (const workload of workloads.filter((w) => only === undefined || w.key === only)) {
    const code = '0x' + workload.code(ITERATIONS);
    const overrides: StateOverrides = new Map([[TARGET, { code: Uint8Array.from(Buffer.from(code.slice(2), 'hex')) }]]);
    const request = { to: Uint8Array.from(Buffer.from(TARGET.slice(2), 'hex')), gas: 1_000_000_000n };
    const gas = workload.gas(ITERATIONS);
    process.env.TRACEHOOK_FAST_EVM = '1';
    const { wallMs: fast, cpuMs: fastCpu } = await timeRuns(() => chain.call(request, block, overrides), 5);
    if (withProfile) {
      const { areas, functions } = summarizeProfile(
        await profileWhile(async () => {
          for (let i = 0; i < RUNS; i++) await chain.call(request, block, overrides);
        }),
      );
      const list = (entries: [string, number][]) => entries.map(([name, share]) => `${name} ${Math.round(100 * share)}%`).join(', ');
      profiles.push(`${workload.name} on the interpreter (${RUNS} calls):\n  areas: ${list(areas)}\n  functions: ${list(functions)}`);
    }
    process.env.TRACEHOOK_FAST_EVM = '0';
    const slow = withEthereumjs ? (await timeRuns(() => chain.call(request, block, overrides), 1)).wallMs : undefined;
    delete process.env.TRACEHOOK_FAST_EVM;
    let theirs: number | undefined;
    if (anvil) {
      const params = [{ to: TARGET, gas: '0x3b9aca00' }, 'latest', { [TARGET]: { code } }];
      theirs = (await timeRuns(() => rpc(anvil.url, 'eth_call', params), 5)).wallMs;
    }
    const mgas = (ms: number) => gas / 1000 / ms;
    console.log(
      `| ${workload.name} | ${gas} | ${mgas(fast).toFixed(0)} | ${slow ? mgas(slow).toFixed(1) : '—'} | ${theirs ? mgas(theirs).toFixed(0) : '—'} | ${slow ? (slow / fast).toFixed(1) + '×' : '—'} | ${theirs ? (theirs / fast).toFixed(2) : '—'} | ${mgas(fastCpu).toFixed(0)} |`,
    );
  }
  if (profiles.length) console.log(`\nWhere the interpreter's time goes (self time, shares of the profiled span):\n${profiles.join('\n')}`);
} finally {
  await anvil?.stop();
  await chain.close();
  rmSync(dataDir, { recursive: true, force: true });
}
