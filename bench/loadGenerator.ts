// A small keep-alive HTTP/1.1 load generator, run in its own process (fork) so it does not share
// the event loop of the server it measures. Each connection sends one POST, waits for the whole
// response (Content-Length framing), records the latency and sends the next.
import { connect, type Socket } from 'node:net';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { monotonicUs } from './cpuProfile.js';

export interface LoadSpec {
  /** `http://host:port/path` */
  url: string;
  body: string;
  /** Distinct bodies, sent round-robin instead of `body` (e.g. distinct calls no cache can answer). */
  bodies?: string[];
  /**
   * Send each body exactly once, then stop (cold figures: the first request for each item);
   * `durationMs` and `warmupMs` are then ignored.
   */
  once?: boolean;
  /**
   * With `once`: before the counted requests, every connection sends `body` for this long (opened
   * connections, a load generator past its own warm-up), so a short row measures the requests it
   * names rather than connection set-up; 0 or absent opens the connections inside the row.
   */
  primeMs?: number;
  connections: number;
  durationMs: number;
  /** Requests during the warm-up are not counted. */
  warmupMs: number;
}

export interface LoadResult {
  requests: number;
  /** Answers received including the warm-up (for per-request costs measured over the whole run). */
  answered: number;
  rps: number;
  statuses: Record<string, number>;
  errors: number;
  /** Latency percentiles in milliseconds. */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  responseBytes: number;
  /** When the counted requests began (ms since the epoch), for timings another process completes. */
  startedAtEpochMs: number;
  /** The counted requests' window, µs on the monotonic clock (comparable with the service's CPU profiles). */
  windowUs: { from: number; to: number };
}

/** Requests that failed: connection errors and answers other than HTTP 200. */
export function failedRequests(result: LoadResult): number {
  return result.errors + Object.entries(result.statuses).reduce((n, [status, count]) => (status === '200' ? n : n + count), 0);
}

const HEADER_END = Buffer.from('\r\n\r\n');

function buildRequest(spec: LoadSpec, text: string): Buffer {
  const u = new URL(spec.url);
  const body = Buffer.from(text);
  const head =
    `POST ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** Runs the load and resolves with the counted results. */
export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const u = new URL(spec.url);
  const requests = (spec.bodies ?? [spec.body]).map((text) => buildRequest(spec, text));
  let nextRequest = 0;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let responseBytes = 0;
  let answered = 0;
  let counting = false;
  let stopped = false;
  const sockets: Socket[] = [];
  const priming = spec.once === true && (spec.primeMs ?? 0) > 0;
  let primed = !priming;
  const primeRequest = priming ? buildRequest(spec, spec.body) : undefined;

  const openConnection = () => {
    let buffer: Buffer = Buffer.alloc(0);
    let sentAt = 0;
    let counted = false;
    const socket = connect({ host: u.hostname, port: Number(u.port), noDelay: true });
    sockets.push(socket);
    const send = () => {
      if (stopped) return;
      if (!primed) {
        counted = false;
        socket.write(primeRequest!);
        return;
      }
      counted = true;
      if (spec.once && nextRequest >= requests.length) {
        socket.end();
        if (latencies.length + errors >= requests.length) finish();
        return;
      }
      sentAt = performance.now();
      socket.write(requests[nextRequest++ % requests.length]!);
    };
    socket.on('connect', send);
    socket.on('error', () => errors++);
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        const headerEnd = buffer.indexOf(HEADER_END);
        if (headerEnd === -1) return;
        const head = buffer.toString('latin1', 0, headerEnd);
        const match = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        const length = match ? Number(match[1]) : 0;
        const total = headerEnd + 4 + length;
        if (buffer.length < total) return;
        const status = head.slice(9, 12);
        buffer = buffer.subarray(total);
        answered++;
        if (counting && counted) {
          latencies.push(performance.now() - sentAt);
          statuses[status] = (statuses[status] ?? 0) + 1;
          responseBytes += length;
        }
        send();
      }
    });
  };

  let started = 0;
  let resolveResult!: (result: LoadResult) => void;
  const finish = () => {
    if (stopped) return;
    counting = false;
    stopped = true;
    const elapsedSec = (performance.now() - started) / 1000;
    const endedUs = monotonicUs();
    for (const s of sockets) s.destroy();
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
    const round = (n: number) => Math.round(n * 1000) / 1000;
    resolveResult({
      requests: latencies.length,
      answered,
      rps: Math.round(latencies.length / elapsedSec),
      statuses,
      errors,
      p50Ms: round(pct(50)),
      p90Ms: round(pct(90)),
      p99Ms: round(pct(99)),
      maxMs: round(latencies[latencies.length - 1] ?? 0),
      meanMs: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
      responseBytes: latencies.length ? Math.round(responseBytes / latencies.length) : 0,
      startedAtEpochMs: performance.timeOrigin + started,
      windowUs: { from: endedUs - Math.round(elapsedSec * 1e6), to: endedUs },
    });
  };
  const result = new Promise<LoadResult>((resolve) => (resolveResult = resolve));
  if (spec.once && priming) {
    setTimeout(() => {
      primed = true;
      counting = true;
      started = performance.now();
    }, spec.primeMs);
  } else if (spec.once) {
    counting = true;
    started = performance.now();
  } else {
    setTimeout(() => {
      counting = true;
      started = performance.now();
      setTimeout(finish, spec.durationMs);
    }, spec.warmupMs);
  }
  for (let i = 0; i < Math.min(spec.connections, spec.once ? requests.length : spec.connections); i++) openConnection();
  return result;
}

/** Runs the load generator in a child process, so it does not share the measuring process's event loop. */
export function runLoadInChild(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    child.once('message', (result) => resolve(result as LoadResult));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
    child.send(spec);
  });
}

// As a forked child: receive one LoadSpec, answer with its LoadResult, exit.
if (process.send) {
  process.once('message', (spec: LoadSpec) => {
    void runLoad(spec).then((result) => {
      process.send!(result, () => process.exit(0));
    });
  });
}
