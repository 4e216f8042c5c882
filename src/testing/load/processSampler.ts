// Samples a running service from outside: resident memory and open file descriptors from
// /proc/<pid> (Linux), V8 heap and the event loop's delay (p99 since the previous scrape) from its
// /metrics. Only one sampler may scrape a service: each scrape resets the loop-delay window.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessSample {
  /** Seconds since the sampler started. */
  t: number;
  rssBytes: number;
  fds: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  /** p50 and p99 of the event loop's delay since the previous sample, ms; NaN when the service saw no tick. */
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
}

function rssOf(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

function metric(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
}

export async function sampleProcess(pid: number, metricsUrl: string, headers: Record<string, string>, startedAt: number): Promise<ProcessSample> {
  const text = await (await fetch(metricsUrl, { headers })).text();
  return {
    t: (Date.now() - startedAt) / 1000,
    rssBytes: rssOf(pid),
    fds: readdirSync(`/proc/${pid}/fd`).length,
    heapUsedBytes: metric(text, 'tracehook_nodejs_heap_used_bytes'),
    heapTotalBytes: metric(text, 'tracehook_nodejs_heap_total_bytes'),
    externalBytes: metric(text, 'tracehook_nodejs_external_bytes'),
    loopDelayP50Ms: metric(text, 'tracehook_event_loop_delay_seconds', '{quantile="0.5"}') * 1000,
    loopDelayP99Ms: metric(text, 'tracehook_event_loop_delay_seconds', '{quantile="0.99"}') * 1000,
  };
}
