import net from 'node:net';
import { createHttp1Pool } from '../src/backends/upstream/http1/http1Pool.js';
import { startAnvil } from '../src/testing/startAnvil.js';
const anvil = await startAnvil();
const url = new URL(anvil.url);
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
const pool = createHttp1Pool({ url, headers: { 'Content-Type': 'application/json' }, label: 'anvil', maxSockets: 64, maxResponseBytes: 1 << 20 });
function rawConn() {
  const s = net.connect(Number(url.port), url.hostname); s.setNoDelay(true);
  let buf = Buffer.alloc(0); let waiter: ((t: string) => void) | undefined;
  s.on('data', (d) => { buf = buf.length ? Buffer.concat([buf, d]) : d; const he = buf.indexOf('\r\n\r\n'); if (he < 0) return; const head = buf.toString('latin1', 0, he); const m = /content-length: *(\d+)/i.exec(head); const len = Number(m![1]); if (buf.length < he + 4 + len) return; const t = buf.toString('utf8', he + 4, he + 4 + len); buf = buf.subarray(he + 4 + len); const w = waiter!; waiter = undefined; w(t); });
  const req = `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return () => new Promise<string>((res) => { waiter = res; s.write(req); });
}
async function run(name: string, mk: () => () => Promise<string>) {
  const fns = Array.from({ length: 8 }, mk); let left = 20000;
  const c0 = process.cpuUsage(); const w0 = performance.now();
  await Promise.all(fns.map(async (f) => { while (left-- > 0) await f(); }));
  const c = process.cpuUsage(c0); console.log(name, 'req/s', Math.round(20000 / (performance.now() - w0) * 1000), 'us/req', ((c.user + c.system) / 20000).toFixed(1));
}
for (let r = 0; r < 3; r++) {
  await run('raw ', rawConn);
  await run('pool', () => () => pool.post(body, { deadlineMs: 10000, resendOnStale: true }).then((a) => a.text));
}
pool.close(); await anvil.stop(); process.exit(0);
