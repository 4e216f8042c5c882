// Summarises a V8 .cpuprofile (node --cpu-prof): top functions by self time and by inclusive
// time, so profiles can be compared in docs/performance.md without a GUI.
//
//   npx tsx bench/cpuProfileSummary.ts FILE.cpuprofile [--top 30] [--match TEXT] [--last-sec N] [--skip-last-sec M]
//
// `--match TEXT` also prints the inclusive share of every function whose name or URL contains TEXT;
// `--last-sec N` keeps only the last N seconds of samples (the load, not start-up and mining);
// `--skip-last-sec M` drops the final M seconds first (the service's shutdown after the load).
import { frameLabel as label, readCpuProfile, selfTimeBetween } from './cpuProfile.js';

const file = process.argv[2];
if (!file) throw new Error('usage: cpuProfileSummary FILE.cpuprofile [--top N] [--match TEXT]');
const topIndex = process.argv.indexOf('--top');
const TOP = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 30;
const matchIndex = process.argv.indexOf('--match');
const MATCH = matchIndex > 0 ? process.argv[matchIndex + 1] : undefined;
const lastIndex = process.argv.indexOf('--last-sec');
const LAST_US = lastIndex > 0 ? Number(process.argv[lastIndex + 1]) * 1e6 : Infinity;
const skipIndex = process.argv.indexOf('--skip-last-sec');
const SKIP_US = skipIndex > 0 ? Number(process.argv[skipIndex + 1]) * 1e6 : 0;

const profile = readCpuProfile(file);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Time per sample from timeDeltas (µs), attributed to the sampled node; the window's end is inclusive.
const endUs = profile.startTime + profile.timeDeltas.reduce((a, b) => a + b, 0);
const { selfUs, coveredUs: totalUs } = selfTimeBetween(profile, endUs - SKIP_US - LAST_US, endUs - SKIP_US + 1);

const selfByLabel = new Map<string, number>();
const inclByLabel = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  selfByLabel.set(label(node), (selfByLabel.get(label(node)) ?? 0) + us);
  // Inclusive: once per distinct label on the stack (recursion counted once).
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclByLabel.set(l, (inclByLabel.get(l) ?? 0) + us);
  }
}

const pct = (us: number) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
const print = (title: string, m: Map<string, number>, filter?: (l: string) => boolean) => {
  console.log(`\n${title}`);
  for (const [l, us] of [...m].filter(([l]) => !filter || filter(l)).sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`${pct(us)} ${(us / 1000).toFixed(0).padStart(7)} ms  ${l}`);
  }
};
console.log(`total ${(totalUs / 1e6).toFixed(2)} s sampled`);
print('self time', selfByLabel);
print('inclusive time', inclByLabel);
if (MATCH) print(`inclusive, matching ${MATCH}`, inclByLabel, (l) => l.includes(MATCH));
