// Least-squares slope of samples over time, and floors per window (the lowest value of each
// window, which follows a garbage-collected heap's baseline instead of its saw-tooth).

export interface Sample {
  /** Seconds since the start of the run. */
  t: number;
  value: number;
}

/** Slope in value units per second; 0 for fewer than two samples. */
export function slopePerSec(samples: readonly Sample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const mt = samples.reduce((s, x) => s + x.t, 0) / n;
  const mv = samples.reduce((s, x) => s + x.value, 0) / n;
  let num = 0;
  let den = 0;
  for (const x of samples) {
    num += (x.t - mt) * (x.value - mv);
    den += (x.t - mt) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** The minimum of each window of `windowSec`, stamped at the window's middle. */
export function windowFloors(samples: readonly Sample[], windowSec: number): Sample[] {
  const byWindow = new Map<number, number>();
  for (const s of samples) {
    const w = Math.floor(s.t / windowSec);
    byWindow.set(w, Math.min(byWindow.get(w) ?? Number.POSITIVE_INFINITY, s.value));
  }
  return [...byWindow].sort((a, b) => a[0] - b[0]).map(([w, value]) => ({ t: (w + 0.5) * windowSec, value }));
}
