// Latencies per operation name, with p50/p99 and counts of failures, for the load run's report.

export interface MethodFigures {
  method: string;
  count: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LatencyBook {
  record(method: string, ms: number, ok: boolean): void;
  figures(): MethodFigures[];
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function createLatencyBook(): LatencyBook {
  const times = new Map<string, number[]>();
  const failures = new Map<string, number>();
  return {
    record(method, ms, ok) {
      const list = times.get(method) ?? [];
      list.push(ms);
      times.set(method, list);
      if (!ok) failures.set(method, (failures.get(method) ?? 0) + 1);
    },
    figures() {
      return [...times].sort((a, b) => a[0].localeCompare(b[0])).map(([method, list]) => {
        const sorted = [...list].sort((a, b) => a - b);
        return { method, count: list.length, failed: failures.get(method) ?? 0, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99) };
      });
    },
  };
}
