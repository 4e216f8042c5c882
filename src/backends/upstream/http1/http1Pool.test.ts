// The keep-alive connection pool against small TCP servers written here: connections are reused,
// bounded and queued; a node that closed a kept connection gets a read again on a fresh one but
// never a write; deadlines and aborts hold while waiting for a connection too.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UpstreamAbortedError, UpstreamConnectionError, UpstreamTimeoutError } from '../../../rpc/errors.js';
import { createHttp1Pool, type Http1Pool } from './http1Pool.js';

interface Server {
  url: URL;
  /** Connections accepted so far. */
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

/** A TCP server that answers each request (one per read: the tests send small ones) with `answer`. */
async function startServer(options: { answer?: (body: string) => string | undefined; delayMs?: number } = {}): Promise<Server> {
  const sockets = new Set<net.Socket>();
  const state = { connections: 0, requests: [] as string[] };
  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (data) => {
      const text = data.toString('utf8');
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      state.requests.push(text);
      const reply = options.answer ? options.answer(body) : body;
      if (reply === undefined) return;
      setTimeout(() => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(reply)}\r\n\r\n${reply}`), options.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc?x=1`),
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

let pool: Http1Pool | undefined;
let server: Server | undefined;
afterEach(async () => {
  pool?.close();
  await server?.close();
  pool = server = undefined;
});

const make = (s: Server, maxSockets = 4) => (pool = createHttp1Pool({ url: s.url, headers: { 'Content-Type': 'application/json', 'X-Key': 'k' }, label: 'node-a', maxSockets, maxResponseBytes: 1 << 20 }));
const read = { deadlineMs: 2_000, resendOnStale: true };
const write = { deadlineMs: 2_000, resendOnStale: false };

describe('http1Pool', () => {
  it('behavior: sends path, query, Host and the headers, and reuses one connection for sequential posts', async () => {
    server = await startServer();
    const p = make(server);
    for (let i = 0; i < 5; i++) expect(await p.post(`{"n":${i}}`, read)).toEqual({ status: 200, text: `{"n":${i}}` });
    expect(server.connections).toBe(1);
    expect(server.requests[0]).toMatch(/^POST \/rpc\?x=1 HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nContent-Type: application\/json\r\nX-Key: k\r\nContent-Length: 7\r\n\r\n/);
  });

  it('behavior: at most maxSockets connections; further posts wait for a free one', async () => {
    server = await startServer({ delayMs: 30 });
    const p = make(server, 2);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => p.post(String(i), read)));
    expect(answers.map((a) => a.text)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(server.connections).toBe(2);
  });

  it('behavior: the keep-alive race: a read is resent, a write fails with a connection error', async () => {
    let closeNext = false;
    const sockets = new Set<net.Socket>();
    let requests = 0;
    const srv = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('data', (data) => {
        requests++;
        // The node closed this connection "just before" the request: no answer, a FIN.
        if (closeNext) {
          closeNext = false;
          return void socket.end();
        }
        const body = data.toString().split('\r\n\r\n')[1]!;
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = new URL(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/`);
    pool = createHttp1Pool({ url, headers: {}, label: 'node-a', maxSockets: 4, maxResponseBytes: 1 << 20 });
    try {
      expect((await pool.post('a', read)).text).toBe('a');
      closeNext = true;
      expect((await pool.post('b', read)).text).toBe('b');
      expect(requests).toBe(3);
      closeNext = true;
      await expect(pool.post('c', write)).rejects.toThrow(/closed a kept-alive connection before answering/);
      expect(requests).toBe(4);
      // A fresh connection that closes before answering is a connection error, never resent.
      pool.close();
      closeNext = true;
      await expect(pool.post('d', read)).rejects.toBeInstanceOf(UpstreamConnectionError);
      expect(requests).toBe(5);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => srv.close(r));
    }
  });

  it('error: deadlines hold for an answer that never comes and while waiting for a connection', async () => {
    server = await startServer({ answer: () => undefined });
    const p = make(server, 1);
    const started = Date.now();
    const first = p.post('hang', { ...read, deadlineMs: 150 });
    const queued = p.post('queued', { ...read, deadlineMs: 100 });
    await expect(queued).rejects.toBeInstanceOf(UpstreamTimeoutError);
    await expect(first).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('error: an abort ends the call at once, queued or in flight, and frees its slot', async () => {
    server = await startServer({ answer: (b) => (b === 'hang' ? undefined : b) });
    const p = make(server, 1);
    const inFlight = new AbortController();
    const queuedAbort = new AbortController();
    const first = p.post('hang', { ...read, signal: inFlight.signal });
    const queued = p.post('queued', { ...read, signal: queuedAbort.signal });
    queuedAbort.abort();
    await expect(queued).rejects.toBeInstanceOf(UpstreamAbortedError);
    inFlight.abort();
    await expect(first).rejects.toBeInstanceOf(UpstreamAbortedError);
    expect((await p.post('after', read)).text).toBe('after');
  });

  it('error: a refused connection is a connection error naming the cause, never the URL', async () => {
    server = await startServer();
    const url = server.url;
    await server.close();
    server = undefined;
    pool = createHttp1Pool({ url, headers: {}, label: 'node-a', maxSockets: 2, maxResponseBytes: 1024 });
    const error = (await pool.post('x', read).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(UpstreamConnectionError);
    expect(error.message).toMatch(/Upstream node-a: connection failed \(ECONNREFUSED\)/);
    expect(error.message).not.toContain(String(url.port));
  });

  it('behavior: an idle connection the node writes to is dropped, not read as the next answer', async () => {
    const sockets: net.Socket[] = [];
    const srv = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('data', (data) => {
        const body = data.toString().split('\r\n\r\n')[1]!;
        socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    pool = createHttp1Pool({ url: new URL(`http://127.0.0.1:${(srv.address() as AddressInfo).port}/`), headers: {}, label: 'node-a', maxSockets: 2, maxResponseBytes: 1024 });
    try {
      expect((await pool.post('a', read)).text).toBe('a');
      sockets[0]!.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstale');
      await new Promise((r) => setTimeout(r, 50));
      expect((await pool.post('b', read)).text).toBe('b');
      expect(sockets.length).toBe(2);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => srv.close(r));
    }
  });
});
