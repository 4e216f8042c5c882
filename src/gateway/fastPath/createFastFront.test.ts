// The fast path over real sockets, through a real gateway: pipelining, hand-off to node:http in the
// middle of a connection, split bodies, close semantics, deadlines, shutdown, and a differential
// property against a gateway that runs node:http alone (same answers for generated requests).
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcBody, startTestGateway, type TestGateway } from '../testing/startTestGateway.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw client connection that reads whole responses (Content-Length framing). */
class RawClient {
  readonly socket: Socket;
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  readonly ready: Promise<void>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.ready = new Promise((resolve) => this.socket.once('connect', () => resolve()));
    this.socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.wake();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on('error', () => undefined);
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next response, or undefined when the connection closed first. */
  async response(timeoutMs = 5000): Promise<RawResponse | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end !== -1) {
        const head = this.buffer.toString('latin1', 0, end).split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const c = line.indexOf(':');
          headers[line.slice(0, c).toLowerCase()] = line.slice(c + 1).trim();
        }
        const status = Number(head[0]!.split(' ')[1]);
        const length = Number(headers['content-length'] ?? 0);
        if (status === 100) {
          this.buffer = this.buffer.subarray(end + 4);
          continue;
        }
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.toString('utf8', end + 4, end + 4 + length);
          this.buffer = this.buffer.subarray(end + 4 + length);
          return { status, headers, body };
        }
      }
      if (this.closed) return undefined;
      if (Date.now() > deadline) throw new Error(`no response within ${timeoutMs} ms; have ${JSON.stringify(this.buffer.toString('latin1'))}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  async waitClosed(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  destroy() {
    this.socket.destroy();
  }
}

const rpcRequest = (key: string, body: string, extra: string[] = []) =>
  [`POST /v2/${key} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, ...extra, '', body].join('\r\n');
const get = (path: string, extra: string[] = []) => [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...extra, '', ''].join('\r\n');

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ limits: { headersTimeoutMs: 400, requestTimeoutMs: 600, keepAliveTimeoutMs: 800, drainTimeoutMs: 5000 } });
});
afterAll(async () => t.close());

describe('fast path', () => {
  it('behavior: answers carry the same headers as node:http answers, plus Date and keep-alive', async () => {
    const c = new RawClient(t.port);
    c.write(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId'), ['X-Request-Id: req-1', 'Origin: https://app.example']));
    const r = (await c.response())!;
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    expect(r.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(r.body)),
      'x-request-id': 'req-1',
      'access-control-allow-origin': '*',
      connection: 'keep-alive',
      'keep-alive': 'timeout=0',
    });
    expect(new Date(r.headers.date!).getTime()).toBeGreaterThan(Date.now() - 5000);
    c.destroy();
  });

  it('behavior: pipelined requests are answered in order on one connection', async () => {
    const c = new RawClient(t.port);
    const ids = Array.from({ length: 20 }, (_, i) => i);
    c.write(ids.map((i) => rpcRequest(t.keys.enterprise, rpcBody('eth_chainId', [], i))).join(''));
    for (const i of ids) expect(JSON.parse((await c.response())!.body)).toMatchObject({ id: i });
    c.destroy();
  });

  it('behavior: pipelined requests cut into arbitrary chunks get every answer, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof({ arbitrary: fc.constant('rpc' as const), weight: 4 }, fc.constant('health' as const)), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (kinds, cuts) => {
          const stream = Buffer.from(kinds.map((k, i) => (k === 'rpc' ? rpcRequest(t.keys.enterprise, rpcBody('eth_chainId', [], i)) : get('/healthz'))).join(''));
          const points = [...new Set(cuts.map((c) => c % stream.length))].sort((a, b) => a - b);
          const c = new RawClient(t.port);
          await c.ready;
          let from = 0;
          for (const p of [...points, stream.length]) {
            if (p > from) c.write(stream.subarray(from, p));
            from = p;
            await new Promise((r) => setImmediate(r));
          }
          for (const [i, k] of kinds.entries()) {
            const body = JSON.parse((await c.response())!.body) as Record<string, unknown>;
            expect(body).toEqual(k === 'rpc' ? { jsonrpc: '2.0', id: i, result: '0x7a69' } : { status: 'ok' });
          }
          c.destroy();
        },
      ),
      { numRuns: 60 },
    );
  }, 30_000);

  it('behavior: a body that arrives byte by byte is answered once complete', async () => {
    const c = new RawClient(t.port);
    await c.ready;
    const request = Buffer.from(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId', [], 'slow')));
    for (const byte of request) {
      c.write(Buffer.from([byte]));
      await new Promise((r) => setImmediate(r));
    }
    expect(JSON.parse((await c.response())!.body)).toMatchObject({ id: 'slow', result: '0x7a69' });
    c.destroy();
  });

  it('behavior: another route mid-connection hands the connection to node:http, which serves the rest', async () => {
    const c = new RawClient(t.port);
    c.write(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId', [], 1)));
    expect((await c.response())!.status).toBe(200);
    // Pipelined: an RPC call, a health check, an RPC call, all in one write.
    c.write(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId', [], 2)) + get('/healthz') + rpcRequest(t.keys.enterprise, rpcBody('eth_chainId', [], 3)));
    expect(JSON.parse((await c.response())!.body)).toMatchObject({ id: 2 });
    expect(JSON.parse((await c.response())!.body)).toEqual({ status: 'ok' });
    expect(JSON.parse((await c.response())!.body)).toMatchObject({ id: 3 });
    c.write(get('/nope'));
    expect((await c.response())!.status).toBe(404);
    c.destroy();
  });

  it('behavior: chunked and Expect: 100-continue requests go to node:http and are answered', async () => {
    const c = new RawClient(t.port);
    const body = rpcBody('eth_chainId', [], 'chunked');
    c.write([`POST /v2/${t.keys.enterprise} HTTP/1.1`, 'Host: a', 'Content-Type: application/json', 'Transfer-Encoding: chunked', '', `${Buffer.byteLength(body).toString(16)}`, body, '0', '', ''].join('\r\n'));
    expect(JSON.parse((await c.response())!.body)).toMatchObject({ id: 'chunked', result: '0x7a69' });
    const d = new RawClient(t.port);
    d.write(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId', [], 'expect'), ['Expect: 100-continue']));
    expect(JSON.parse((await d.response())!.body)).toMatchObject({ id: 'expect' });
    c.destroy();
    d.destroy();
  });

  it('behavior: Connection: close is answered with Connection: close and the connection ends', async () => {
    const c = new RawClient(t.port);
    c.write(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId'), ['Connection: close']));
    const r = (await c.response())!;
    expect(r.headers.connection).toBe('close');
    expect(await c.waitClosed()).toBe(true);
  });

  it('behavior: a client that disconnects aborts its call; answered calls leave no listener behind', async () => {
    // A listener per exchange on the keep-alive socket would pass Node's limit of 10 and warn.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const c = new RawClient(t.port);
    for (let i = 0; i < 30; i++) {
      c.write(rpcRequest(t.keys.payg, rpcBody('test_sleep', [0], i)));
      expect(JSON.parse((await c.response())!.body)).toMatchObject({ id: i, result: 'slept' });
    }
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    c.write(rpcRequest(t.keys.payg, rpcBody('test_sleep', [10_000])));
    while (t.state.sleeping === 0) await new Promise((r) => setTimeout(r, 5));
    c.destroy();
    const deadline = Date.now() + 2000;
    while (t.state.sleeping > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(t.state.sleeping).toBe(0);
  });

  it('behavior: a client that disconnects cancels a call listening through onCancel (no AbortSignal made)', async () => {
    const c = new RawClient(t.port);
    for (let i = 0; i < 30; i++) {
      c.write(rpcRequest(t.keys.payg, rpcBody('test_sleepOnCancel', [0], i)));
      expect(JSON.parse((await c.response())!.body)).toMatchObject({ id: i, result: 'slept' });
    }
    c.write(rpcRequest(t.keys.payg, rpcBody('test_sleepOnCancel', [10_000])));
    while (t.state.sleeping === 0) await new Promise((r) => setTimeout(r, 5));
    c.destroy();
    const deadline = Date.now() + 2000;
    while (t.state.sleeping > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(t.state.sleeping).toBe(0);
  });

  it('behavior: error answers that close (415) close the connection', async () => {
    const c = new RawClient(t.port);
    c.write([`POST /v2/${t.keys.enterprise} HTTP/1.1`, 'Host: a', 'Content-Type: text/plain', 'Content-Length: 2', '', '{}'].join('\r\n'));
    const r = (await c.response())!;
    expect(r.status).toBe(415);
    expect(r.headers.connection).toBe('close');
    expect(await c.waitClosed()).toBe(true);
  });

  it('error: an incomplete head or body past its deadline gets 408 and is closed', async () => {
    const head = new RawClient(t.port);
    head.write('POST /v2/x HTTP/1.1\r\nHost: a\r\n');
    const body = new RawClient(t.port);
    body.write(`POST /v2/${t.keys.enterprise} HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`);
    expect((await head.response())!.status).toBe(408);
    expect((await body.response())!.status).toBe(408);
    expect(await head.waitClosed()).toBe(true);
    expect(await body.waitClosed()).toBe(true);
  });

  it('error: a connection handed to node:http keeps node:http deadlines', async () => {
    const c = new RawClient(t.port);
    c.write(get('/healthz'));
    expect((await c.response())!.status).toBe(200);
    c.write('GET /healthz HTTP/1.1\r\nHost: a\r\n');
    expect((await c.response())!.status).toBe(408);
    expect(await c.waitClosed()).toBe(true);
  });

  it('behavior: idle keep-alive connections are closed after the keep-alive timeout', async () => {
    const c = new RawClient(t.port);
    c.write(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId')));
    await c.response();
    const started = Date.now();
    expect(await c.waitClosed(5000)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });
});

describe('fast path shutdown', () => {
  it('behavior: close() answers the request in flight with Connection: close and closes idle connections at once', async () => {
    const g = await startTestGateway({ limits: { drainTimeoutMs: 10_000 } });
    const idle = new RawClient(g.port);
    idle.write(rpcRequest(g.keys.enterprise, rpcBody('eth_chainId')));
    await idle.response();
    const busy = new RawClient(g.port);
    busy.write(rpcRequest(g.keys.enterprise, rpcBody('test_sleep', [300])));
    while (g.state.sleeping === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    const closing = g.close();
    expect(await idle.waitClosed(1000)).toBe(true);
    const r = (await busy.response())!;
    expect(r.status).toBe(200);
    expect(r.headers.connection).toBe('close');
    await closing;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await busy.waitClosed(1000)).toBe(true);
  });
});

describe('fast path against node:http alone', () => {
  let alone: TestGateway;
  beforeAll(async () => {
    alone = await startTestGateway({ store: { keys: t.repo }, fastPath: false });
  });
  afterAll(async () => alone.close());

  it('behavior: /metrics counts fast-path answers and hand-offs; fastPath: false serves everything through node:http', async () => {
    const counters = async (g: TestGateway) => {
      const text = await (await fetch(`${g.url}/metrics`)).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return { fast: value('tracehook_http_fast_path_requests_total'), handOffs: value('tracehook_http_fast_path_handoffs_total') };
    };
    for (const g of [t, alone]) {
      const before = await counters(g);
      const c = new RawClient(g.port);
      c.write(rpcRequest(t.keys.enterprise, rpcBody('eth_chainId')) + rpcRequest(t.keys.enterprise, rpcBody('eth_chainId')) + get('/healthz'));
      for (let i = 0; i < 3; i++) expect((await c.response())!.status).toBe(200);
      c.destroy();
      const after = await counters(g);
      expect(after.fast - before.fast).toBe(g === t ? 2 : 0);
      // At least the raw connection (the /metrics fetches may open more).
      if (g === t) expect(after.handOffs - before.handOffs).toBeGreaterThanOrEqual(1);
      else expect(after.handOffs).toBe(0);
    }
  });

  it('behavior: a client that half-closes after a slow call gets no answer from either (node:http aborts the call)', async () => {
    for (const g of [t, alone]) {
      const c = new RawClient(g.port);
      c.socket.end(rpcRequest(t.keys.payg, rpcBody('test_sleep', [300])));
      expect(await c.response()).toBeUndefined();
    }
  });

  it('behavior: generated requests get the same status, body and header names from both', async () => {
    const key = t.keys.enterprise;
    const target = fc.constantFrom(`/v2/${key}`, `/v2/${key}?a=1`, `/mainnet/v2/${key}`, `/MainNet/v2/${key}`, '/v2/NoSuchKey', '/v2/', '/other/v2/x', '/healthz', `/v2/${t.keys.free}`);
    const body = fc.constantFrom(rpcBody('eth_chainId'), rpcBody('trace_transaction', ['0x' + '00'.repeat(32)]), '{"jsonrpc":"2.0"', '[]', '', 'x'.repeat(70_000), JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, 7]));
    const header = fc.constantFrom(
      'Content-Type: application/json',
      'Content-Type: text/plain',
      'Content-Type: application/json; charset=utf-8',
      'Origin: https://app.example',
      'X-Request-Id: fixed-id',
      'Connection: close',
      'Connection: keep-alive',
      'Expect: 100-continue',
      'Bad Header: 1',
      'X-Ctl: a\x01b',
      'Accept: */*',
    );
    await fc.assert(
      fc.asyncProperty(
        // Weighted towards what the fast path serves, so both sides of the hand-off are exercised.
        fc.oneof({ arbitrary: fc.constant('POST'), weight: 6 }, fc.constant('GET'), fc.constant('PUT')),
        fc.oneof({ arbitrary: fc.constant('HTTP/1.1'), weight: 6 }, fc.constant('HTTP/1.0')),
        target,
        body,
        fc.uniqueArray(header, { maxLength: 3 }),
        fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, fc.constant(false)),
        async (method, version, path, payload, headers, withLength) => {
          const lines = [`${method} ${path} ${version}`, 'Host: 127.0.0.1', 'X-Request-Id: fixed-id', ...headers.filter((h) => !h.startsWith('X-Request-Id'))];
          if (withLength) lines.push(`Content-Length: ${Buffer.byteLength(payload)}`);
          const raw = `${lines.join('\r\n')}\r\n\r\n${withLength ? payload : ''}`;
          const answers = await Promise.all(
            [t, alone].map(async (g) => {
              const c = new RawClient(g.port);
              c.write(raw);
              const r = await c.response();
              c.destroy();
              return r;
            }),
          );
          const [fast, node] = answers;
          expect(fast === undefined).toBe(node === undefined);
          if (!fast || !node) return;
          expect(fast.status).toBe(node.status);
          expect(fast.body).toBe(node.body);
          const names = (r: RawResponse) => Object.keys(r.headers).sort();
          expect(names(fast)).toEqual(names(node));
          for (const name of ['content-type', 'content-length', 'connection', 'access-control-allow-origin', 'allow', 'x-request-id']) {
            expect(fast.headers[name]).toBe(node.headers[name]);
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});
