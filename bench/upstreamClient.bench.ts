// The upstream hop's HTTP client, alone: node:http with a keep-alive agent, undici's Pool, and the
// pool Tracehook uses (backends/upstream/http1/http1Pool.ts), posting eth_blockNumber to one anvil,
// sequentially and with 8 in flight. CPU per request is this process's user+system time divided by
// the requests: it does not depend much on what else the machine runs, unlike req/s.
//
//   npm run build && npx tsx bench/upstreamClient.bench.ts [--requests 5000]
//
// Tracehook's pool is loaded from the build (dist/), as the service runs it: tsx's transform adds
// wrappers to every function of the source that would be counted against it and not against undici.
import http from 'node:http';
import { Pool } from 'undici';
import type { createHttp1Pool as CreateHttp1Pool } from '../src/backends/upstream/http1/http1Pool.js';
import { startAnvil } from '../src/testing/startAnvil.js';
import { numberArg } from './erc20Workload.js';

const REQUESTS = numberArg('requests', 5000);

async function main(): Promise<void> {
  const anvil = await startAnvil();
  const url = new URL(anvil.url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const nodeHttp = () =>
    new Promise<string>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      });
      req.on('error', reject);
      req.end(body);
    });
  const undiciPool = new Pool(url.origin, { connections: 64 });
  const undici = async () => (await undiciPool.request({ path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body })).body.text();
  const built = '../dist/backends/upstream/http1/http1Pool.js';
  const { createHttp1Pool } = (await import(built)) as { createHttp1Pool: typeof CreateHttp1Pool };
  const pool = createHttp1Pool({ url, headers: { 'Content-Type': 'application/json' }, label: 'anvil', maxSockets: 64, maxResponseBytes: 1 << 20 });
  const ours = async () => (await pool.post(body, { deadlineMs: 10_000, resendOnStale: true })).text;

  const run = async (post: () => Promise<string>, inFlight: number) => {
    let left = REQUESTS;
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (left-- > 0) if (!(await post()).includes('"result"')) throw new Error('no result');
      }),
    );
    const cpu = process.cpuUsage(cpu0);
    return { rps: Math.round((REQUESTS / (performance.now() - started)) * 1000), cpuUs: ((cpu.user + cpu.system) / REQUESTS).toFixed(1) };
  };
  console.log(`\nUpstream HTTP client, ${REQUESTS} eth_blockNumber posts to one anvil per row (the best of three rounds by CPU)\n`);
  console.log('| client | in flight | req/s | client CPU µs/req |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const inFlight of [1, 8]) {
    for (const [name, post] of [['node:http (keep-alive agent)', nodeHttp], ['undici Pool', undici], ['http1Pool (ours)', ours]] as const) {
      const rounds = [await run(post, inFlight), await run(post, inFlight), await run(post, inFlight)];
      const { rps, cpuUs } = rounds.sort((a, b) => Number(a.cpuUs) - Number(b.cpuUs))[0]!;
      console.log(`| ${name} | ${inFlight} | ${rps} | ${cpuUs} |`);
    }
  }
  pool.close();
  await undiciPool.close();
  agent.destroy();
  await anvil.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
