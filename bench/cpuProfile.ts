// Reading V8 CPU profiles (`node --cpu-prof`): samples cut to a time window, frames labelled by
// function and file, and grouped by the part of the code they belong to. Used by
// cpuProfileSummary.ts (one file by hand) and rowProfiles.ts (each bench row's window).
import { readFileSync } from 'node:fs';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  /** Sampled node ids, in time order. */
  samples: number[];
  /** µs from the previous sample (the first from `startTime`). */
  timeDeltas: number[];
  /** µs on the monotonic clock, the base of `process.hrtime` in every process of the machine. */
  startTime: number;
  endTime: number;
}

export function readCpuProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** µs of the monotonic clock now, comparable with a profile's `startTime` taken in another process. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Self time per node id over the samples taken in [fromUs, toUs) on the monotonic clock, and the
 * time those samples cover (idle included, so shares of it are shares of the window's wall time).
 */
export function selfTimeBetween(profile: CpuProfile, fromUs: number, toUs: number): { selfUs: Map<number, number>; coveredUs: number } {
  const selfUs = new Map<number, number>();
  let coveredUs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (at < fromUs || at >= toUs) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
    coveredUs += dt;
  }
  return { selfUs, coveredUs };
}

const shortUrl = (url: string) => url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(src|dist)\//, '$1/');

/** `function file:line`, the file relative to src/, dist/ or node_modules/. */
export function frameLabel(node: ProfileNode): string {
  return `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
}

/**
 * The part of the code a frame belongs to: for our code its folder two levels down
 * (`engine/interpreter`, `gateway/fastPath`), for a package its name (`@ethereumjs/mpt`), for
 * Node's own JavaScript its module (`node:internal/worker/io`), for WebAssembly `(wasm)`, for
 * native code and V8's pseudo-frames the function's name (`(native) writeUtf8String`, `(idle)`, `(garbage collector)`).
 */
export function codeArea(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName || 'anonymous'}`;
  const ours = /\/(?:src|dist)\/(.+)$/.exec(url);
  if (ours && !url.includes('node_modules')) {
    const parts = ours[1]!.split('/');
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!.replace(/\.[cm]?[jt]s$/, '');
  }
  if (url.startsWith('wasm://')) return '(wasm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  return url.startsWith('node:') ? url : shortUrl(url);
}

/** Self time summed by {@link codeArea}, largest first. */
export function timeByArea(profile: CpuProfile, selfUs: Map<number, number>): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areas = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const area = codeArea(byId.get(id)!);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  return [...areas].sort((a, b) => b[1] - a[1]);
}
