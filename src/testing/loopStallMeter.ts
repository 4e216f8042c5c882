// Measures how long the event loop is held: a 1 ms timer samples it, and each gap between two
// callbacks is kept as wall time (what a client waited, including time a shared machine gave other
// processes) and as the main thread's own CPU time (Linux schedstat, ns resolution: the work that
// held the loop, as an idle machine would show it). Used by tests and benches of long operations.
import { readFileSync } from 'node:fs';

/** On-CPU time of the main thread in ms; NaN where /proc is not there. */
export function mainThreadCpuMs(): number {
  try {
    return Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

export interface LoopGaps {
  /** Sorted ascending, ms. */
  wall: number[];
  /** Sorted ascending, ms (NaN entries where not measurable). */
  cpu: number[];
}

export function startLoopStallMeter(): { stop(): LoopGaps } {
  const wall: number[] = [];
  const cpu: number[] = [];
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  const sample = () => {
    const now = performance.now();
    const nowCpu = mainThreadCpuMs();
    wall.push(now - last);
    cpu.push(nowCpu - lastCpu);
    last = now;
    lastCpu = nowCpu;
  };
  const timer = setInterval(sample, 1);
  return {
    stop() {
      clearInterval(timer);
      // The stretch since the last callback counts too (a synchronous run has no callback at all).
      sample();
      return { wall: wall.sort((a, b) => a - b), cpu: cpu.sort((a, b) => a - b) };
    },
  };
}

export const percentile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;

export function describeGaps({ wall, cpu }: LoopGaps): string {
  return `longest gap ${wall.at(-1)!.toFixed(1)} ms wall / ${cpu.at(-1)!.toFixed(1)} ms main-thread CPU; p99 ${percentile(wall, 0.99).toFixed(1)} / ${percentile(cpu, 0.99).toFixed(1)} ms; ${wall.length} gaps`;
}
