// A keep-alive HTTP load generator for JSON-RPC: N connections each send requests back to back for
// a fixed time. Used for tracehook and anvil alike, so both are measured by the same client.
import http from 'node:http';

export interface LoadOptions {
  url: string;
  /** Request bodies; request i uses bodies[i % bodies.length]. */
  bodies: string[];
  connections: number;
  durationMs: number;
  /** Checks each response body; a false return counts as an error. */
  check?: (status: number, body: string) => boolean;
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function post(agent: http.Agent, url: URL, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const end = performance.now() + options.durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < end) {
        const body = options.bodies[counter++ % options.bodies.length]!;
        const t0 = performance.now();
        try {
          const res = await post(agent, url, body);
          latencies.push(performance.now() - t0);
          if (options.check ? !options.check(res.status, res.text) : res.status !== 200) errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsedSec = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, rps: latencies.length / elapsedSec, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

/** Prints rows of figures for tracehook and anvil side by side with the ratio tracehook/anvil. */
export function printComparison(title: string, rows: { name: string; tracehook: LoadResult; anvil?: LoadResult }[]): void {
  console.log(`\n${title}`);
  console.log('| workload | tracehook rps | anvil rps | rps ratio | tracehook p50/p99 ms | anvil p50/p99 ms | errors (th/anvil) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const a = r.anvil;
    const ratio = a ? (r.tracehook.rps / a.rps).toFixed(2) : 'n/a';
    console.log(
      `| ${r.name} | ${r.tracehook.rps.toFixed(0)} | ${a ? a.rps.toFixed(0) : 'n/a'} | ${ratio} | ${r.tracehook.p50Ms.toFixed(2)} / ${r.tracehook.p99Ms.toFixed(2)} | ${a ? `${a.p50Ms.toFixed(2)} / ${a.p99Ms.toFixed(2)}` : 'n/a'} | ${r.tracehook.errors}/${a ? a.errors : '-'} |`,
    );
  }
}
