// Why another client's latency moves while a trace worker spins in looping calls (the setting of
// guardedExecution.test.ts's latency test): for each /healthz and eth_blockNumber round trip of
// another key it reads the main thread's run-queue wait from /proc (schedstat: time the thread was
// runnable but not running, i.e. waiting for a core), so a round trip's wall time splits into time
// spent waiting for the OS scheduler and the rest. Also prints the CPU time of the main thread and
// of every other thread that used 20 ms or more over the window (the trace worker among them).
//
//   npx tsx bench/guardLatency.bench.ts [--runs 3]     (alternates TRACEHOOK_FAST_EVM=1 and 0)
import { readFileSync, readdirSync } from 'node:fs';
import { startPooledService } from '../src/backends/embedded/testing/pooledService.js';
import { numberArg } from './erc20Workload.js';

const RUNS = numberArg('runs', 3);
const LOOP = '0x00000000000000000000000000000000000000bc';
const OVERRIDES = { [LOOP]: { code: '0x5b600056' } };
const call = (id: number, method: string, params: unknown[]) => ({ jsonrpc: '2.0', id, method, params });

/** [cpu ns, run-queue wait ns] of one thread of this process. */
function schedstat(tid: number): [number, number] {
  const [cpu, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
  return [cpu!, wait!];
}

function threadsByName(): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const tid of readdirSync('/proc/self/task').map(Number)) {
    const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    out.set(name, [...(out.get(name) ?? []), tid]);
  }
  return out;
}

function pct(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

async function once(fast: boolean): Promise<void> {
  process.env.TRACEHOOK_FAST_EVM = fast ? '1' : '0';
  const service = await startPooledService({ workers: 1, gasCap: 2_000_000_000n, callTimeoutMs: 300, tiers: { cuPerSecond: { free: 10_000 } } });
  while (service.pool!.stats().starting > 0) await new Promise((r) => setTimeout(r, 50));
  // Warm both paths once.
  await post(service.rpcUrl('enterprise'), call(1, 'eth_blockNumber', []));
  const main = process.pid;
  const threads = [...threadsByName()].flatMap(([name, tids]) => tids.filter((t) => t !== main).map((t) => ({ name, tid: t, cpu0: schedstat(t)[0] })));
  const [mainCpu0] = schedstat(main);
  const started = performance.now();
  const batch = Array.from({ length: 12 }, (_, i) => call(i, 'eth_call', [{ to: LOOP }, 'latest', OVERRIDES]));
  let finished = false;
  const answer = post(service.rpcUrl('free'), batch).finally(() => (finished = true));
  const wall: number[] = [];
  const own: number[] = [];
  const waits: number[] = [];
  while (!finished) {
    for (const send of [() => fetch(`${service.gateway.url}/healthz`).then((r) => r.text()), () => post(service.rpcUrl('enterprise'), call(1, 'eth_blockNumber', []))]) {
      const [, w0] = schedstat(main);
      const t0 = performance.now();
      await send();
      const ms = performance.now() - t0;
      const waitMs = (schedstat(main)[1] - w0) / 1e6;
      wall.push(ms);
      waits.push(waitMs);
      own.push(Math.max(0, ms - waitMs));
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await answer;
  const elapsed = performance.now() - started;
  const busy = threads.map((t) => ({ name: t.name, ms: (schedstat(t.tid)[0] - t.cpu0) / 1e6 })).filter((t) => t.ms >= 20);
  const mainCpu = (schedstat(main)[0] - mainCpu0) / 1e6;
  console.log(
    `fast=${fast ? 1 : 0} samples ${wall.length} wall p50/p99/max ${pct(wall, 50).toFixed(1)}/${pct(wall, 99).toFixed(1)}/${Math.max(...wall).toFixed(1)} ms; ` +
      `run-queue wait p99/max ${pct(waits, 99).toFixed(1)}/${Math.max(...waits).toFixed(1)} ms; wall minus wait p99/max ${pct(own, 99).toFixed(1)}/${Math.max(...own).toFixed(1)} ms; ` +
      `window ${elapsed.toFixed(0)} ms, main-thread CPU ${mainCpu.toFixed(0)} ms, other threads' CPU ${busy.map((t) => `${t.name} ${t.ms.toFixed(0)}`).join(', ')} ms`,
  );
  await service.close();
}

for (let run = 0; run < RUNS; run++) {
  await once(true);
  await once(false);
}
