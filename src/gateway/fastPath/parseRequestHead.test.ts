// The fast path's head parser: the plain JSON-RPC shape is parsed; every other shape is left to
// node:http (undefined).
import { describe, expect, it } from 'vitest';
import { parseRequestHead } from './parseRequestHead.js';

const parse = (head: string) => {
  const buf = Buffer.from(`${head}\r\n\r\n{}`, 'latin1');
  return parseRequestHead(buf, 0, buf.indexOf('\r\n\r\n'));
};
const lines = (...l: string[]) => l.join('\r\n');
const BASE = ['POST /v2/key HTTP/1.1', 'Host: 127.0.0.1:8545', 'Content-Length: 2'];

describe('parseRequestHead', () => {
  it('default: a plain JSON-RPC request is parsed', () => {
    expect(parse(lines(...BASE, 'Content-Type: application/json', 'Origin: https://app.example', 'X-Request-Id: abc-1'))).toEqual({
      target: '/v2/key',
      contentLength: 2,
      contentType: 'application/json',
      origin: 'https://app.example',
      requestId: 'abc-1',
      keepAlive: true,
    });
  });

  it('behavior: names are case-insensitive, values lose surrounding spaces and tabs only', () => {
    const head = parse(lines('POST /mainnet/v2/k?x=1 HTTP/1.1', 'hOsT: a', 'CONTENT-LENGTH:7', 'content-type: \t application/json; charset=utf-8 \t'));
    expect(head).toMatchObject({ target: '/mainnet/v2/k?x=1', contentLength: 7, contentType: 'application/json; charset=utf-8' });
  });

  it('behavior: Connection: close (in any token list) ends keep-alive', () => {
    expect(parse(lines(...BASE, 'Connection: keep-alive'))?.keepAlive).toBe(true);
    expect(parse(lines(...BASE, 'Connection: foo, Close'))?.keepAlive).toBe(false);
  });

  it.each([
    ['another method', lines('GET /v2/key HTTP/1.1', 'Host: a', 'Content-Length: 2')],
    ['HTTP/1.0', lines('POST /v2/key HTTP/1.0', 'Host: a', 'Content-Length: 2')],
    ['two spaces in the request line', lines('POST  /v2/key HTTP/1.1', 'Host: a', 'Content-Length: 2')],
    ['an absolute-form target', lines('POST http://a/v2/key HTTP/1.1', 'Host: a', 'Content-Length: 2')],
    ['a target with a control character', lines('POST /v2/k\x01ey HTTP/1.1', 'Host: a', 'Content-Length: 2')],
    ['no header lines', 'POST /v2/key HTTP/1.1'],
    ['no Host', lines('POST /v2/key HTTP/1.1', 'Content-Length: 2')],
    ['two Host headers', lines(...BASE, 'Host: b')],
    ['no Content-Length', lines('POST /v2/key HTTP/1.1', 'Host: a')],
    ['two Content-Length headers', lines(...BASE, 'Content-Length: 2')],
    ['a Content-Length that is not digits', lines('POST /v2/key HTTP/1.1', 'Host: a', 'Content-Length: +2')],
    ['an absurd Content-Length', lines('POST /v2/key HTTP/1.1', 'Host: a', 'Content-Length: 1234567890123456')],
    ['Transfer-Encoding', lines(...BASE, 'Transfer-Encoding: chunked')],
    ['Expect', lines(...BASE, 'Expect: 100-continue')],
    ['Upgrade', lines(...BASE, 'Upgrade: websocket')],
    ['Connection: upgrade', lines(...BASE, 'Connection: Upgrade')],
    ['a space before the colon', lines(...BASE, 'Content-Type : application/json')],
    ['an empty header name', lines(...BASE, ': x')],
    ['a line without a colon', lines(...BASE, 'garbage')],
    ['obsolete line folding', lines(...BASE, 'X-A: 1', ' folded')],
    ['a bare LF in a value', lines(...BASE, 'X-A: 1\n2')],
    ['a bare CR in a value', lines(...BASE, 'X-A: 1\r2')],
    ['a NUL in a value', lines(...BASE, 'X-A: 1\x002')],
    ['two Content-Type headers', lines(...BASE, 'Content-Type: application/json', 'Content-Type: text/plain')],
    ['two Origin headers', lines(...BASE, 'Origin: a', 'Origin: b')],
  ])('behavior: %s is left to node:http', (_, head) => {
    expect(parse(head)).toBeUndefined();
  });
});
