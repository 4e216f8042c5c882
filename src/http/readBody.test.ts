import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readBody } from './readBody.js';
import { constantTimeEqual } from './constantTimeEqual.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => { server?.closeAllConnections(); return server ? server.close(() => r()) : r(); }));

function serve(maxBytes: number, timeoutMs: number): Promise<number> {
  server = createServer((req, res) => {
    readBody(req, { maxBytes, timeoutMs }).then(
      (body) => res.end(`ok:${body.length}`),
      (error: Error) => res.end(error.name),
    );
  });
  return new Promise((r) => server!.listen(0, '127.0.0.1', () => r((server!.address() as AddressInfo).port)));
}

function post(port: number, chunks: string[], delayMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ port, method: 'POST', host: '127.0.0.1' }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    let i = 0;
    const next = () => {
      if (i < chunks.length) {
        req.write(chunks[i++]);
        setTimeout(next, delayMs);
      } else req.end();
    };
    next();
  });
}

describe('readBody', () => {
  it('default: returns the whole body', async () => {
    const port = await serve(100, 1000);
    expect(await post(port, ['abc', 'def'])).toBe('ok:6');
  });
  it('error: refuses a body over the limit', async () => {
    const port = await serve(4, 1000);
    expect(await post(port, ['abc', 'def'])).toBe('BodyTooLargeError');
  });
  it('error: gives up on a client that sends too slowly', async () => {
    const port = await serve(100, 100);
    expect(await post(port, ['a', 'b', 'c', 'd'], 60)).toBe('BodyTimeoutError');
  });
});

describe('constantTimeEqual', () => {
  it('default: equal and unequal strings of any length', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('secret', 'secreT')).toBe(false);
    expect(constantTimeEqual('secret', 'secret-longer')).toBe(false);
  });
});
