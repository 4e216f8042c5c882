// Long synchronous work (better-sqlite3 statements run on the main thread) split into slices: after
// each step the caller asks whether its slice is used up, and if so the event loop gets a turn.

export interface TimeSlicer {
  /** Yields to the event loop (setImmediate) when `sliceMs` have passed since the last yield. */
  maybeYield(): Promise<void>;
}

/** Default slice: well below the 50 ms other clients may wait at most. */
export const DEFAULT_SLICE_MS = 15;

export function createTimeSlicer(sliceMs = DEFAULT_SLICE_MS): TimeSlicer {
  let sliceStart = performance.now();
  return {
    async maybeYield() {
      if (performance.now() - sliceStart < sliceMs) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    },
  };
}

/** Items sorted per run before the runs are merged: one run sorts in a few milliseconds. */
const SORT_RUN = 8192;

/**
 * Sorts strings ascending (code unit order, as `Array.prototype.sort`) without holding the event
 * loop: runs of SORT_RUN items are sorted, then merged pairwise, asking `slicer` between steps.
 */
export async function sortInSlices(items: readonly string[], slicer: TimeSlicer): Promise<string[]> {
  let runs: string[][] = [];
  for (let i = 0; i < items.length; i += SORT_RUN) {
    runs.push(items.slice(i, i + SORT_RUN).sort());
    await slicer.maybeYield();
  }
  while (runs.length > 1) {
    const merged: string[][] = [];
    for (let i = 0; i < runs.length; i += 2) {
      merged.push(i + 1 < runs.length ? mergeSorted(runs[i]!, runs[i + 1]!) : runs[i]!);
      await slicer.maybeYield();
    }
    runs = merged;
  }
  return runs[0] ?? [];
}

function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
