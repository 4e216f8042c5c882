// Where a bench row's time went in the service: every thread's V8 CPU profile (`node --cpu-prof`
// writes one file per thread) cut to the row's counted window, each thread's busy share of the
// window and its largest code areas (cpuProfile.ts's `codeArea`) by self time.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type CpuProfile, readCpuProfile, selfTimeBetween, timeByArea } from './cpuProfile.js';

export interface RowWindow {
  name: string;
  /** The row's counted requests, µs on the monotonic clock (LoadResult.windowUs). */
  fromUs: number;
  toUs: number;
}

export interface ThreadShare {
  thread: string;
  /** Share of the window's wall time the thread was not idle. */
  busy: number;
  /** Largest code areas, each as a share of the window's wall time. */
  areas: [string, number][];
}

interface ThreadProfile {
  thread: string;
  profile: CpuProfile;
}

/** The thread a profile file is from: `main`, or the worker's entry module, or `worker <thread id>`. */
function threadName(file: string, profile: CpuProfile): string {
  // CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile
  const threadId = file.split('.')[4];
  if (threadId === '0') return 'main';
  const entry = profile.nodes.map((n) => /\/(\w*[Ww]orker)\.[cm]?[jt]s$/.exec(n.callFrame.url)?.[1]).find(Boolean);
  return entry ?? `worker ${threadId}`;
}

export function readThreadProfiles(dir: string): ThreadProfile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .map((f) => {
      const profile = readCpuProfile(join(dir, f));
      return { thread: threadName(f, profile), profile };
    });
}

/** Each thread's share of the window, threads busy for under `minBusy` of it left out. */
export function rowShares(threads: ThreadProfile[], window: RowWindow, top = 6, minBusy = 0.01): ThreadShare[] {
  const wallUs = window.toUs - window.fromUs;
  const shares: ThreadShare[] = [];
  for (const { thread, profile } of threads) {
    const { selfUs } = selfTimeBetween(profile, window.fromUs, window.toUs);
    const areas = timeByArea(profile, selfUs).filter(([area]) => area !== '(idle)');
    const busyUs = areas.reduce((sum, [, us]) => sum + us, 0);
    if (busyUs / wallUs < minBusy) continue;
    shares.push({ thread, busy: busyUs / wallUs, areas: areas.slice(0, top).map(([area, us]) => [area, us / wallUs]) });
  }
  return shares.sort((a, b) => b.busy - a.busy);
}

const percent = (share: number) => `${Math.round(100 * share)}%`;

/** Prints, for each row, each busy thread's share and its largest code areas. */
export function printRowProfiles(dir: string, windows: RowWindow[]): void {
  const threads = readThreadProfiles(dir);
  console.log(`\nWhere each row's time went in tracehook (CPU profiles in ${dir}; shares of the row's wall time; self time by code area):`);
  for (const window of windows) {
    console.log(`\n${window.name} (${((window.toUs - window.fromUs) / 1000).toFixed(0)} ms)`);
    for (const share of rowShares(threads, window)) {
      console.log(`  ${share.thread}: busy ${percent(share.busy)}; ${share.areas.map(([area, s]) => `${area} ${percent(s)}`).join(', ')}`);
    }
  }
}
