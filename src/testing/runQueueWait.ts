// Test and bench support: how long this process's main thread has waited for a CPU, from Linux's
// /proc schedstat (time runnable but not running). A latency test on a machine shared with other
// processes subtracts it from a round trip's wall time, so what it bounds is time the service
// itself spent (running, or blocked on its own work), not time the OS gave the core to others.

import { readFileSync } from 'node:fs';

const path = `/proc/self/task/${process.pid}/schedstat`;

/** Milliseconds the main thread has spent waiting on a run queue since it started; 0 where /proc has no schedstat. */
export function mainThreadRunQueueWaitMs(): number {
  try {
    return Number(readFileSync(path, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}
