// CPU time of each thread of a process (Linux /proc/<pid>/task/*/stat), for CPU per request of the
// service's main thread and its trace worker during a load: steadier than wall-clock rates on a
// shared machine, since a thread that waits for a core is not charged for the wait.
import { readdirSync, readFileSync } from 'node:fs';

/** Thread id → CPU µs (user + system) so far; empty where /proc is not readable. */
export function threadCpuUs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) start at the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
      out.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** A thread's name (its `comm`), or '' when it has ended. */
export function threadName(pid: number, tid: number): string {
  try {
    return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

export interface CpuPerAnswer {
  mainUs: number;
  /** The busiest thread besides the main one (the trace worker under a trace load). */
  busiestOtherUs: number;
  allUs: number;
  /** Every thread that used CPU, busiest first, as `name:µs`. */
  threads: string;
}

/** CPU µs per answer between two snapshots: the main thread, the busiest other thread, all threads. */
export function cpuPerAnswer(pid: number, before: Map<number, number>, after: Map<number, number>, answers: number): CpuPerAnswer {
  const per = (us: number) => Math.round(us / Math.max(1, answers));
  let all = 0;
  let busiestOther = 0;
  let main = 0;
  const used: [number, number][] = [];
  for (const [tid, us] of after) {
    const delta = us - (before.get(tid) ?? 0);
    all += delta;
    if (delta > 0) used.push([tid, delta]);
    if (tid === pid) main = delta;
    else busiestOther = Math.max(busiestOther, delta);
  }
  used.sort((a, b) => b[1] - a[1]);
  const threads = used.map(([tid, us]) => `${tid === pid ? 'main' : threadName(pid, tid)}:${per(us)}`).join(' ');
  return { mainUs: per(main), busiestOtherUs: per(busiestOther), allUs: per(all), threads };
}
