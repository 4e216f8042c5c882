// Answers written before a large body is in (413 over the limit, 401 for an unknown key) reach a
// client that sends its whole body before reading, on the fast path and through node:http alone:
// the connection lingers, dropping the rest of the body, instead of resetting the client (EPIPE).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Linger } from '../http/lingeringClose.js';
import { startTestGateway, type TestGateway } from './testing/startTestGateway.js';

let fast: TestGateway;
let alone: TestGateway;
beforeAll(async () => {
  fast = await startTestGateway();
  alone = await startTestGateway({ fastPath: false });
});
afterAll(async () => {
  await fast.close();
  await alone.close();
});

/** Writes head and body in one go (as curl or Python's requests do), then reads until the server closes. */
function sendWhole(port: number, path: string, body: Buffer): Promise<{ error: string | undefined; answer: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ error, answer }));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.end(body);
  });
}

const statusOf = (answer: string) => Number(answer.slice(9, 12));
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

describe('lingering close', () => {
  const body = Buffer.alloc(16 * 1024 * 1024, 0x20);

  for (const [name, gateway] of [['fast path', () => fast], ['node:http alone', () => alone]] as const) {
    it(`error: a 16 MiB body gets a readable 413, not EPIPE (${name})`, async () => {
      const g = gateway();
      const r = await sendWhole(g.port, `/v2/${g.keys.free}`, body);
      expect(r.error).toBeUndefined();
      expect(statusOf(r.answer)).toBe(413);
      expect(r.answer).toContain('Connection: close');
      expect(bodyOf(r.answer)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body exceeds the limit of 5242880 bytes' } });
    });

    it(`error: an unknown key with a large body gets a readable 401 (${name})`, async () => {
      const g = gateway();
      const r = await sendWhole(g.port, '/v2/NoSuchKey0000000000000000000000', body);
      expect(r.error).toBeUndefined();
      expect(statusOf(r.answer)).toBe(401);
    });
  }

  it('behavior: the fast path serves the next connection normally after a lingering one', async () => {
    await sendWhole(fast.port, `/v2/${fast.keys.free}`, body);
    const r = await fetch(`${fast.url}/v2/${fast.keys.free}`, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
  });
});

describe('Linger', () => {
  it('behavior: cut after the byte limit, after idling, or after the total time', () => {
    const limits = { maxMs: 1000, idleMs: 100, maxBytes: 10 };
    const bytes = new Linger(0, limits);
    expect(bytes.received(10, 1)).toBe(false);
    expect(bytes.received(1, 2)).toBe(true);
    const idle = new Linger(0, limits);
    idle.received(1, 50);
    expect(idle.expired(150)).toBe(false);
    expect(idle.expired(151)).toBe(true);
    const total = new Linger(0, limits);
    for (let ms = 90; ms <= 990; ms += 90) total.received(1, ms);
    expect(total.expired(1000)).toBe(false);
    expect(total.expired(1001)).toBe(true);
  });
});
