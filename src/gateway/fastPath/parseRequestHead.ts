// Strict parser of one HTTP/1.1 request head for the fast path. It recognises only the plain
// shape JSON-RPC clients send (POST, Content-Length, no Transfer-Encoding, Expect or Upgrade) and
// answers `undefined` for anything else, so that node:http, which gets the untouched bytes, decides
// every unusual or malformed case exactly as it would have alone.

/** What the fast path needs from a request head. */
export interface RequestHead {
  /** Request target (path and query), e.g. `/v2/<key>`. */
  target: string;
  contentLength: number;
  contentType: string | undefined;
  origin: string | undefined;
  requestId: string | undefined;
  /** False when the client sent `Connection: close`. */
  keepAlive: boolean;
}

// RFC 9110 token characters (header names).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values after trimming: visible characters, space, tab and obs-text; no CR, LF, NUL or other controls.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
// origin-form request targets: no spaces or controls.
const TARGET = /^\/[\x21-\x7e]*$/;
const DIGITS = /^[0-9]{1,15}$/;
const REQUEST_LINE_END = ' HTTP/1.1';

function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * Parses the head in `buf[start, headEnd)` (`headEnd` is where the blank line's `\r\n\r\n`
 * begins). Returns undefined when the request is not one the fast path serves.
 */
export function parseRequestHead(buf: Buffer, start: number, headEnd: number): RequestHead | undefined {
  const head = buf.toString('latin1', start, headEnd);
  if (!head.startsWith('POST ')) return undefined;
  const lineEnd = head.indexOf('\r\n');
  // No header lines at all means no Host, which node:http refuses.
  if (lineEnd === -1) return undefined;
  if (!head.endsWith(REQUEST_LINE_END, lineEnd)) return undefined;
  const target = head.slice(5, lineEnd - REQUEST_LINE_END.length);
  if (!TARGET.test(target)) return undefined;

  let contentLength: number | undefined;
  let contentType: string | undefined;
  let origin: string | undefined;
  let requestId: string | undefined;
  let host = false;
  let keepAlive = true;
  let pos = lineEnd + 2;
  while (pos <= head.length) {
    let next = head.indexOf('\r\n', pos);
    if (next === -1) next = head.length;
    const line = head.slice(pos, next);
    pos = next + 2;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return undefined;
    const value = trimOws(line.slice(colon + 1));
    if (!FIELD_VALUE.test(value)) return undefined;
    switch (name.toLowerCase()) {
      case 'content-length':
        if (contentLength !== undefined || !DIGITS.test(value)) return undefined;
        contentLength = Number(value);
        break;
      case 'host':
        if (host) return undefined;
        host = true;
        break;
      case 'content-type':
        if (contentType !== undefined) return undefined;
        contentType = value;
        break;
      case 'origin':
        if (origin !== undefined) return undefined;
        origin = value;
        break;
      case 'x-request-id':
        if (requestId !== undefined) return undefined;
        requestId = value;
        break;
      case 'connection':
        for (const option of value.toLowerCase().split(',')) {
          const token = trimOws(option);
          if (token === 'close') keepAlive = false;
          else if (token === 'upgrade') return undefined;
        }
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return undefined;
    }
  }
  if (!host || contentLength === undefined) return undefined;
  return { target, contentLength, contentType, origin, requestId, keepAlive };
}
