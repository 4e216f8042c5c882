// A V8 CPU profile of this process's main thread while `work` runs (node:inspector), for benches
// that run the engine in-process; summarised with cpuProfile.ts like a `--cpu-prof` file.
import { Session } from 'node:inspector/promises';
import { type CpuProfile, frameLabel, monotonicUs, selfTimeBetween, timeByArea } from './cpuProfile.js';

/** The profile, and the span `work` ran in (µs, monotonic clock): the profiler's own start and stop left out. */
export interface ProfiledSpan {
  profile: CpuProfile;
  fromUs: number;
  toUs: number;
}

export async function profileWhile(work: () => Promise<unknown>, intervalUs = 250): Promise<ProfiledSpan> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await session.post('Profiler.start');
    const fromUs = monotonicUs();
    await work();
    const toUs = monotonicUs();
    const { profile } = await session.post('Profiler.stop');
    return { profile: profile as unknown as CpuProfile, fromUs, toUs };
  } finally {
    session.disconnect();
  }
}

/** The largest code areas and functions by self time, as shares of the span `work` ran in. */
export function summarizeProfile({ profile, fromUs, toUs }: ProfiledSpan, top = 8): { areas: [string, number][]; functions: [string, number][] } {
  const { selfUs, coveredUs } = selfTimeBetween(profile, fromUs, toUs);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const label = frameLabel(byId.get(id)!);
    functions.set(label, (functions.get(label) ?? 0) + us);
  }
  const share = ([name, us]: [string, number]): [string, number] => [name, us / coveredUs];
  return {
    areas: timeByArea(profile, selfUs).slice(0, top).map(share),
    functions: [...functions].sort((a, b) => b[1] - a[1]).slice(0, top).map(share),
  };
}
