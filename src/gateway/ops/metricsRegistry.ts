// A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
// exposition format (version 0.0.4). Written here rather than pulled in so the hot path stays a
// map lookup and an add. https://prometheus.io/docs/instrumenting/exposition_formats/

export interface CounterChild {
  inc(by?: number): void;
}

export interface Counter {
  inc(labels: readonly string[], by?: number): void;
  /** The series for these label values, for callers that cache it on a hot path. */
  labels(labels: readonly string[]): CounterChild;
}

export interface HistogramChild {
  observe(value: number): void;
}

export interface Histogram {
  observe(labels: readonly string[], value: number): void;
  labels(labels: readonly string[]): HistogramChild;
}

export interface MetricsRegistry {
  counter(name: string, help: string, labelNames: readonly string[]): Counter;
  histogram(name: string, help: string, labelNames: readonly string[], buckets: readonly number[]): Histogram;
  /** A gauge whose samples are read at scrape time. */
  gauge(name: string, help: string, collect: () => ReadonlyArray<{ labels?: Record<string, string>; value: number }>): void;
  render(): string;
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SEP = '\u0001';

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelText(names: readonly string[], values: readonly string[], extra?: string): string {
  const parts = names.map((n, i) => `${n}="${escapeLabel(values[i] ?? '')}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

interface Renderable {
  render(out: string[]): void;
}

export function createMetricsRegistry(): MetricsRegistry {
  const metrics: Renderable[] = [];
  const names = new Set<string>();
  const claim = (name: string) => {
    if (!NAME.test(name)) throw new TypeError(`invalid metric name ${name}`);
    if (names.has(name)) throw new TypeError(`metric ${name} registered twice`);
    names.add(name);
  };

  return {
    counter(name, help, labelNames) {
      claim(name);
      const series = new Map<string, { values: readonly string[]; value: number; inc(by?: number): void }>();
      metrics.push({
        render(out) {
          out.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
          for (const s of series.values()) out.push(`${name}${labelText(labelNames, s.values)} ${formatNumber(s.value)}`);
        },
      });
      const labels = (values: readonly string[]) => {
        const key = values.join(SEP);
        let s = series.get(key);
        if (!s) {
          const created = {
            values: [...values],
            value: 0,
            inc(by = 1) {
              created.value += by;
            },
          };
          series.set(key, created);
          s = created;
        }
        return s;
      };
      return {
        inc: (values, by = 1) => labels(values).inc(by),
        labels,
      };
    },

    histogram(name, help, labelNames, buckets) {
      claim(name);
      const bounds = [...buckets].sort((a, b) => a - b);
      const series = new Map<string, { values: readonly string[]; counts: number[]; sum: number; count: number }>();
      metrics.push({
        render(out) {
          out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
          for (const s of series.values()) {
            let cumulative = 0;
            for (let i = 0; i < bounds.length; i++) {
              cumulative += s.counts[i];
              out.push(`${name}_bucket${labelText(labelNames, s.values, `le="${formatNumber(bounds[i]!)}"`)} ${cumulative}`);
            }
            out.push(`${name}_bucket${labelText(labelNames, s.values, 'le="+Inf"')} ${s.count}`);
            out.push(`${name}_sum${labelText(labelNames, s.values)} ${formatNumber(s.sum)}`);
            out.push(`${name}_count${labelText(labelNames, s.values)} ${s.count}`);
          }
        },
      });
      const labels = (values: readonly string[]): HistogramChild => {
        const key = values.join(SEP);
        let s = series.get(key);
        if (!s) {
          s = { values: [...values], counts: new Array<number>(bounds.length).fill(0), sum: 0, count: 0 };
          series.set(key, s);
        }
        const target = s;
        return {
          observe(value) {
            for (let i = 0; i < bounds.length; i++) {
              if (value <= bounds[i]!) {
                target.counts[i]++;
                break;
              }
            }
            target.sum += value;
            target.count++;
          },
        };
      };
      return {
        observe: (values, value) => labels(values).observe(value),
        labels,
      };
    },

    gauge(name, help, collect) {
      claim(name);
      metrics.push({
        render(out) {
          out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
          for (const sample of collect()) {
            const entries = Object.entries(sample.labels ?? {});
            out.push(`${name}${labelText(entries.map((e) => e[0]), entries.map((e) => e[1]))} ${formatNumber(sample.value)}`);
          }
        },
      });
    },

    render() {
      const out: string[] = [];
      for (const m of metrics) m.render(out);
      return `${out.join('\n')}\n`;
    },
  };
}
