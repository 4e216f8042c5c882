// The JSON-RPC client against a small misbehaving node written here (real HTTP): every way an
// answer can be wrong becomes the right UpstreamError, retryable or not, within the deadline.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ExecutionRevertedError,
  InvalidParamsError,
  MethodNotFoundError,
  RpcError,
  UpstreamAbortedError,
  UpstreamAnswerTooLargeError,
  UpstreamBadAnswerError,
  UpstreamConnectionError,
  UpstreamError,
  UpstreamHttpError,
  UpstreamTimeoutError,
} from '../../rpc/errors.js';
import { createJsonRpcClient, type JsonRpcClient } from './jsonRpcClient.js';

type Request = { id: number; method: string; params?: unknown };
/** How the node answers the next request: the parsed body in, an action out. */
type Behaviour = (body: Request | Request[], req: http.IncomingMessage, res: http.ServerResponse) => void;

let behaviour: Behaviour;
let server: http.Server;
let url: string;
let client: JsonRpcClient;
const seen: { headers: http.IncomingHttpHeaders; body: unknown }[] = [];

const json = (res: http.ServerResponse, value: unknown, status = 200) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof value === 'string' ? value : JSON.stringify(value));
};
const echo: Behaviour = (body, _req, res) =>
  json(res, Array.isArray(body) ? body.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method })) : { jsonrpc: '2.0', id: body.id, result: body.method });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request | Request[];
      seen.push({ headers: req.headers, body });
      behaviour(body, req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
afterEach(() => {
  client?.close();
  seen.length = 0;
});

const make = (options: Partial<Parameters<typeof createJsonRpcClient>[0]> = {}) => (client = createJsonRpcClient({ url, label: 'node-a', timeoutMs: 2_000, ...options }));

describe('JSON-RPC client (misbehaving node over real HTTP)', () => {
  it('default: a call sends JSON-RPC 2.0 with the given headers and returns the result', async () => {
    behaviour = echo;
    make({ headers: { authorization: 'Bearer s3cret' } });
    expect(await client.call('eth_chainId', [])).toBe('eth_chainId');
    expect(seen[0]!.headers.authorization).toBe('Bearer s3cret');
    expect(seen[0]!.body).toMatchObject({ jsonrpc: '2.0', method: 'eth_chainId', params: [] });
  });

  it('default: a batch answered out of order comes back in the calls\' order', async () => {
    behaviour = (body, _req, res) => json(res, (body as Request[]).map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method })).reverse());
    make();
    const outcomes = await client.batch([{ method: 'a', params: [] }, { method: 'b' }, { method: 'c', params: [1] }]);
    expect(outcomes).toEqual([{ ok: true, result: 'a' }, { ok: true, result: 'b' }, { ok: true, result: 'c' }]);
    expect((seen[0]!.body as Request[])[1]).not.toHaveProperty('params');
  });

  it('behavior: a node error is passed through as the class of its code, not retryable', async () => {
    behaviour = (body, _req, res) => {
      const errors = [
        { code: -32602, message: 'invalid argument 0' },
        { code: 3, message: 'execution reverted: nope', data: '0x08c379a0' },
        { code: -32601, message: 'the method trace_call does not exist' },
        { code: -32603, message: 'database closed' },
      ];
      json(res, (body as Request[]).map((c, i) => ({ jsonrpc: '2.0', id: c.id, error: errors[i] })));
    };
    make();
    const outcomes = await client.batch([{ method: 'eth_call' }, { method: 'eth_call' }, { method: 'trace_call' }, { method: 'eth_getLogs' }]);
    const errors = outcomes.map((o) => (o.ok ? undefined : o.error));
    expect(errors[0]).toBeInstanceOf(InvalidParamsError);
    expect(errors[1]).toBeInstanceOf(ExecutionRevertedError);
    expect(errors[1]).toMatchObject({ code: 3, message: 'execution reverted: nope', data: '0x08c379a0', retryable: false });
    expect(errors[2]).toBeInstanceOf(MethodNotFoundError);
    expect(errors[2]).toMatchObject({ code: -32601, message: 'the method trace_call does not exist', retryable: false });
    // The node's own internal error blames the node: another upstream may answer.
    expect(errors[3]).toMatchObject({ code: -32603, message: 'database closed', retryable: true });
    expect(errors[0]!.retryable).toBe(false);
  });

  it('error: a node that hangs fails with a retryable timeout at the deadline', async () => {
    behaviour = () => undefined;
    make({ timeoutMs: 300 });
    const started = Date.now();
    const error = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect(error).toMatchObject({ retryable: true, code: -32603, message: 'Upstream node-a: no answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('error: a reset connection is a retryable connection error', async () => {
    behaviour = (_body, req) => req.socket.destroy();
    make();
    const error = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamConnectionError);
    expect((error as UpstreamError).retryable).toBe(true);
  });

  it('error: a connection cut in the middle of the answer is a retryable connection error', async () => {
    behaviour = (_body, req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"jsonrpc":"2.0","id":1,"result":"0x');
      setTimeout(() => req.socket.destroy(), 20);
    };
    make();
    const error = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamConnectionError);
  });

  it('error: a refused connection is a retryable connection error naming the cause', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    client = createJsonRpcClient({ url: `http://127.0.0.1:${port}`, label: 'gone' });
    const error = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamConnectionError);
    expect((error as Error).message).toBe('Upstream gone: connection failed (ECONNREFUSED)');
  });

  it('error: garbage with HTTP 200 is a bad answer, retryable elsewhere', async () => {
    behaviour = (_body, _req, res) => json(res, '<html>upstream busy</html>');
    make();
    const error = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamBadAnswerError);
    expect(error).toMatchObject({ retryable: true });
  });

  it.each([
    ['not 2.0', { jsonrpc: '1.0', result: '0x1' }, 'jsonrpc is not "2.0"'],
    ['both result and error', { jsonrpc: '2.0', result: '0x1', error: { code: 1, message: 'x' } }, 'exactly one of result and error'],
    ['neither', { jsonrpc: '2.0' }, 'exactly one of result and error'],
    ['malformed error', { jsonrpc: '2.0', error: { code: 'x' } }, 'error is not {code: integer, message: string}'],
  ])('error: an answer with %s is a bad answer', async (_name, answer, message) => {
    behaviour = (body, _req, res) => json(res, { ...answer, id: (body as Request).id });
    make();
    await expect(client.call('eth_blockNumber', [])).rejects.toThrow(message);
  });

  it('error: an answer with another request\'s id is a bad answer, never the result', async () => {
    behaviour = (body, _req, res) => json(res, { jsonrpc: '2.0', id: (body as Request).id + 1, result: '0xbad' });
    make();
    const error = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamBadAnswerError);
    expect((error as Error).message).toMatch(/answer id \d+ is not the request's id \d+/);
  });

  it.each([
    ['one answer missing', (b: Request[]) => b.slice(1).map((c) => ({ jsonrpc: '2.0', id: c.id, result: 1 })), 'batch of 3 answered with 2 answers'],
    ['an id twice', (b: Request[]) => b.map((c) => ({ jsonrpc: '2.0', id: b[0]!.id, result: c.method })), 'was not asked for or came twice'],
    ['an id not asked', (b: Request[]) => b.map((c) => ({ jsonrpc: '2.0', id: c.id + 100, result: 1 })), 'was not asked for or came twice'],
    ['an object instead of an array', (b: Request[]) => ({ jsonrpc: '2.0', id: b[0]!.id, result: 1 }), 'a batch answer is not an array'],
  ])('error: a batch answer with %s is a bad answer', async (_name, answer, message) => {
    behaviour = (body, _req, res) => json(res, answer(body as Request[]));
    make();
    await expect(client.batch([{ method: 'a' }, { method: 'b' }, { method: 'c' }])).rejects.toThrow(message);
  });

  it('error: a node refusing a whole batch with one error answer rejects with that error', async () => {
    behaviour = (_body, _req, res) => json(res, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } });
    make();
    await expect(client.batch([{ method: 'a' }, { method: 'b' }])).rejects.toMatchObject({ code: -32600, message: 'batch too large', retryable: false });
  });

  it('error: an answer over the size limit stops reading at the limit (declared or streamed)', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 0, result: 'x'.repeat(10_000) });
    behaviour = (_body, _req, res) => json(res, big);
    make({ maxResponseBytes: 4_096 });
    await expect(client.call('eth_getLogs', [])).rejects.toThrow(UpstreamAnswerTooLargeError);
    // Without a Content-Length: chunked, counted as it arrives.
    behaviour = (_body, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const write = (n: number): void => void (n > 0 && res.write('x'.repeat(1_024), () => write(n - 1)));
      write(1_000);
    };
    const error = await client.call('eth_getLogs', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamAnswerTooLargeError);
    expect(error).toMatchObject({ retryable: true, message: 'Upstream node-a: bad answer: answer larger than the limit of 4096 bytes' });
  });

  it('error: HTTP 5xx is retryable, 4xx is not, and a JSON-RPC error body is the node\'s error', async () => {
    make();
    behaviour = (_body, _req, res) => json(res, 'bad gateway', 502);
    await expect(client.call('eth_blockNumber', [])).rejects.toMatchObject({ status: 502, retryable: true });
    behaviour = (_body, _req, res) => json(res, 'forbidden', 403);
    const forbidden = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(UpstreamHttpError);
    expect(forbidden).toMatchObject({ status: 403, retryable: false });
    behaviour = (body, _req, res) => json(res, { jsonrpc: '2.0', id: (body as Request).id, error: { code: -32005, message: 'rate limited' } }, 429);
    const limited = await client.call('eth_blockNumber', []).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RpcError);
    expect(limited).not.toBeInstanceOf(UpstreamError);
    expect(limited).toMatchObject({ code: -32005, message: 'rate limited', retryable: true });
  });

  it('error: an aborted signal ends the call at once, not retryable', async () => {
    behaviour = () => undefined;
    make({ timeoutMs: 10_000 });
    const controller = new AbortController();
    const pending = client.call('debug_traceTransaction', ['0x00'], { signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 50);
    const error = await pending;
    expect(error).toBeInstanceOf(UpstreamAbortedError);
    expect((error as UpstreamError).retryable).toBe(false);
  });

  it('error: a URL that is not http(s) is refused at creation', () => {
    expect(() => createJsonRpcClient({ url: 'ws://127.0.0.1:8545' })).toThrow('upstream URL must be http(s), got ws:');
  });
});
