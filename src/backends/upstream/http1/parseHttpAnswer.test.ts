// The HTTP/1.x answer reader: every framing a node may use, split at every byte, and the answers
// that must be refused rather than read as something else.
import { describe, expect, it } from 'vitest';
import { createHttpAnswerReader, HttpAnswerTooLargeError, HttpFramingError } from './parseHttpAnswer.js';

/** Feeds `text` in pieces of `step` bytes; returns the reader and whether it completed. */
function feed(text: string | Buffer, step = Infinity, maxBytes = 1 << 20) {
  const reader = createHttpAnswerReader(maxBytes);
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let complete = false;
  for (let at = 0; at < bytes.length && !complete; at += step) complete = reader.push(bytes.subarray(at, Math.min(bytes.length, at + step)));
  return { reader, complete };
}

const lengthAnswer = (body: string, extra = '') => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;
const chunkedAnswer = (parts: string[], trailer = '') =>
  `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('')}0\r\n${trailer}\r\n`;

describe('parseHttpAnswer', () => {
  const body = '{"jsonrpc":"2.0","id":1,"result":"0x1é"}';

  for (const [name, text] of [
    ['Content-Length', lengthAnswer(body)],
    ['chunked', chunkedAnswer(['{"jsonrpc":"2.0",', '"id":1,"result":"0x1é"}'])],
    ['chunked with an extension and a trailer', chunkedAnswer([body], 'X-Trailer: 1\r\n').replace(/^2a\r\n/m, '2a;name=v\r\n')],
    ['a 100 Continue first', `HTTP/1.1 100 Continue\r\n\r\n${lengthAnswer(body)}`],
  ] as const) {
    it(`behavior: reads a ${name} body split at every byte`, () => {
      for (const step of [1, 2, 3, 7, 64, Infinity]) {
        const { reader, complete } = feed(text, step);
        expect(complete).toBe(true);
        expect(reader.answer()).toEqual({ status: 200, text: body });
        expect(reader.reusable).toBe(true);
      }
    });
  }

  it('behavior: a body framed by the end of the connection completes on end and is not reusable', () => {
    const { reader, complete } = feed(`HTTP/1.1 502 Bad Gateway\r\n\r\n${body}`);
    expect(complete).toBe(false);
    expect(reader.end()).toBe(true);
    expect(reader.answer()).toEqual({ status: 502, text: body });
    expect(reader.reusable).toBe(false);
  });

  it('behavior: Connection close, HTTP/1.0 and leftover bytes make the connection not reusable', () => {
    expect(feed(lengthAnswer(body, 'Connection: close\r\n')).reader.reusable).toBe(false);
    expect(feed(lengthAnswer(body).replace('HTTP/1.1', 'HTTP/1.0')).reader.reusable).toBe(false);
    expect(feed(lengthAnswer(body, 'Connection: keep-alive\r\n').replace('HTTP/1.1', 'HTTP/1.0')).reader.reusable).toBe(true);
    const extra = feed(`${lengthAnswer(body)}HTTP/1.1 200 OK\r\n`);
    expect(extra.complete).toBe(true);
    expect(extra.reader.leftover).toBeGreaterThan(0);
    expect(extra.reader.reusable).toBe(false);
  });

  it('behavior: reads the Keep-Alive timeout the node announces', () => {
    expect(feed(lengthAnswer(body, 'Keep-Alive: timeout=5, max=100\r\n')).reader.keepAliveSeconds).toBe(5);
    expect(feed(lengthAnswer(body)).reader.keepAliveSeconds).toBeUndefined();
  });

  it('behavior: an empty answer (Content-Length 0 or 204) completes at the end of the head', () => {
    expect(feed('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n').reader.answer()).toEqual({ status: 200, text: '' });
    expect(feed('HTTP/1.1 204 No Content\r\n\r\n').reader.answer()).toEqual({ status: 204, text: '' });
  });

  it('behavior: a connection that ends mid-answer does not complete it', () => {
    const { reader } = feed(lengthAnswer(body).slice(0, -3));
    expect(reader.started).toBe(true);
    expect(reader.end()).toBe(false);
    expect(() => reader.answer()).toThrow(/not complete/);
  });

  for (const [name, text] of [
    ['not HTTP', '<html>hello</html>\r\n\r\n'],
    ['HTTP/2 status line', 'HTTP/2 200\r\n\r\n'],
    ['a header without a name', 'HTTP/1.1 200 OK\r\n: x\r\n\r\n'],
    ['a Content-Length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n'],
    ['two different Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab'],
    ['an unsupported transfer coding', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n'],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    ['a chunk longer than its size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n'],
    ['a protocol switch', 'HTTP/1.1 101 Switching Protocols\r\n\r\n'],
  ] as const) {
    it(`error: refuses ${name}`, () => {
      expect(() => feed(text, 1)).toThrow(HttpFramingError);
    });
  }

  it('error: a head that never ends is refused at its bound', () => {
    expect(() => feed(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70_000)}`)).toThrow(/head longer/);
  });

  it('error: bodies over the limit are refused by declared length, by chunk size and while read', () => {
    expect(() => feed(lengthAnswer('x'.repeat(100)), Infinity, 50)).toThrow(HttpAnswerTooLargeError);
    expect(() => feed(chunkedAnswer(['x'.repeat(30), 'y'.repeat(30)]), Infinity, 50)).toThrow(HttpAnswerTooLargeError);
    expect(() => feed(`HTTP/1.1 200 OK\r\n\r\n${'x'.repeat(100)}`, 10, 50)).toThrow(HttpAnswerTooLargeError);
  });
});
