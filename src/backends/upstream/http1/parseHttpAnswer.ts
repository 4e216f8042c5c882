// An incremental reader of one HTTP/1.x answer as it arrives on a socket: the status line and the
// headers, then a body framed by Content-Length, by chunked transfer coding, or by the end of the
// connection. It keeps only what the upstream client needs (status, body, whether the connection
// may carry another request) and refuses what does not parse, so a broken node never yields a
// half-read body that looks whole. Used by http1Pool.ts; framing rules from RFC 9112.

/** Why an answer could not be read; the socket is not reused after one. */
export class HttpFramingError extends Error {
  override name = 'HttpFramingError';
}

/** The body would pass the reader's byte limit. */
export class HttpAnswerTooLargeError extends Error {
  override name = 'HttpAnswerTooLargeError';
}

export interface HttpAnswer {
  status: number;
  /** The body, decoded as UTF-8. */
  text: string;
}

/** Largest status line plus headers read before the answer is called malformed. */
const MAX_HEAD_BYTES = 64 * 1024;
/** Longest chunk-size line (the size in hex and any extensions). */
const MAX_CHUNK_LINE = 4 * 1024;

type Phase = 'head' | 'length' | 'chunkSize' | 'chunkData' | 'chunkEnd' | 'trailers' | 'untilClose' | 'done';

export interface HttpAnswerReader {
  /** Feeds bytes; returns true once the whole answer is read (later bytes are `leftover`). */
  push(chunk: Buffer): boolean;
  /** The connection ended: returns true when that completes the answer (a body framed by close). */
  end(): boolean;
  /** Whether any byte of the answer has arrived. */
  readonly started: boolean;
  /** The answer; only once push or end returned true. */
  answer(): HttpAnswer;
  /** Whether the connection may carry another request after this answer. */
  readonly reusable: boolean;
  /** Bytes received after the answer's end (a well-behaved node sends none). */
  readonly leftover: number;
  /** Seconds the node says it keeps an idle connection open (`Keep-Alive: timeout=N`), if said. */
  readonly keepAliveSeconds: number | undefined;
}

/** A reader for the answer to one request (not HEAD); bodies above `maxBytes` are refused. */
export function createHttpAnswerReader(maxBytes: number): HttpAnswerReader {
  let phase: Phase = 'head';
  let pending: Buffer | undefined; // unparsed bytes of the head or of a chunk-size line
  const body: Buffer[] = [];
  let bodyBytes = 0;
  let remaining = 0; // bytes still to read of a Content-Length body or of a chunk
  let status = 0;
  let keepAlive = true;
  let keepAliveSeconds: number | undefined;
  let started = false;
  let leftover = 0;

  const take = (bytes: Buffer) => {
    bodyBytes += bytes.length;
    if (bodyBytes > maxBytes) throw new HttpAnswerTooLargeError(`body over ${maxBytes} bytes`);
    body.push(bytes);
  };

  /** Takes up to `remaining` body bytes from `data`; returns the bytes after them. */
  const takeRemaining = (data: Buffer): Buffer => {
    const part = data.length <= remaining ? data : data.subarray(0, remaining);
    take(part);
    remaining -= part.length;
    return data.subarray(part.length);
  };

  /** Parses a complete head; sets the body phase. */
  const readHead = (head: string) => {
    const lines = head.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0]!);
    if (!statusLine) throw new HttpFramingError(`not an HTTP/1.x status line: ${JSON.stringify(lines[0]!.slice(0, 40))}`);
    const minor = statusLine[1]!;
    status = Number(statusLine[2]);
    let contentLength: number | undefined;
    let chunked = false;
    let connection = '';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) throw new HttpFramingError('a header line without a name');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value)) throw new HttpFramingError(`Content-Length ${JSON.stringify(value.slice(0, 20))} is not a number`);
        const n = Number(value);
        if (contentLength !== undefined && contentLength !== n) throw new HttpFramingError('two different Content-Length headers');
        contentLength = n;
      } else if (name === 'transfer-encoding') {
        const codings = value.toLowerCase().split(',').map((c) => c.trim());
        if (codings.at(-1) !== 'chunked') throw new HttpFramingError(`transfer coding ${JSON.stringify(value)} is not supported`);
        chunked = true;
      } else if (name === 'connection') connection += `,${value.toLowerCase()}`;
      else if (name === 'keep-alive') {
        const timeout = /(?:^|,)\s*timeout=(\d+)/i.exec(value);
        if (timeout) keepAliveSeconds = Number(timeout[1]);
      }
    }
    const tokens = connection.split(',').map((t) => t.trim());
    keepAlive = minor === '1' ? !tokens.includes('close') : tokens.includes('keep-alive');
    if (status >= 100 && status < 200) {
      // An interim answer (100 Continue, 103 Early Hints): the real one follows on the same socket.
      if (status === 101) throw new HttpFramingError('the node switched protocols');
      phase = 'head';
      return;
    }
    if (status === 204 || status === 304) phase = 'done';
    else if (chunked) {
      if (contentLength !== undefined) keepAlive = false; // RFC 9112 §6.3: chunked wins, and the connection ends after
      phase = 'chunkSize';
    } else if (contentLength !== undefined) {
      if (contentLength > maxBytes) throw new HttpAnswerTooLargeError(`declared body of ${contentLength} bytes is over ${maxBytes}`);
      remaining = contentLength;
      phase = contentLength === 0 ? 'done' : 'length';
    } else {
      keepAlive = false;
      phase = 'untilClose';
    }
  };

  /** Finds a CRLF-ended line at the start of `pending` + chunk; returns it and the rest, or undefined. */
  const line = (chunk: Buffer, limit: number, what: string): { text: string; rest: Buffer } | undefined => {
    const data = pending ? Buffer.concat([pending, chunk]) : chunk;
    const at = data.indexOf('\r\n');
    if (at < 0) {
      if (data.length > limit) throw new HttpFramingError(`${what} longer than ${limit} bytes`);
      pending = data;
      return undefined;
    }
    pending = undefined;
    return { text: data.toString('latin1', 0, at), rest: data.subarray(at + 2) };
  };

  const push = (chunk: Buffer): boolean => {
    if (chunk.length > 0) started = true;
    let data = chunk;
    while (data.length > 0) {
      switch (phase) {
        case 'head': {
          const all = pending ? Buffer.concat([pending, data]) : data;
          const end = all.indexOf('\r\n\r\n');
          if (end < 0) {
            if (all.length > MAX_HEAD_BYTES) throw new HttpFramingError(`answer head longer than ${MAX_HEAD_BYTES} bytes`);
            pending = all;
            return false;
          }
          pending = undefined;
          if (end > MAX_HEAD_BYTES) throw new HttpFramingError(`answer head longer than ${MAX_HEAD_BYTES} bytes`);
          readHead(all.toString('latin1', 0, end));
          data = all.subarray(end + 4);
          break;
        }
        case 'length':
          data = takeRemaining(data);
          if (remaining === 0) phase = 'done';
          break;
        case 'chunkSize': {
          const got = line(data, MAX_CHUNK_LINE, 'a chunk-size line');
          if (!got) return false;
          const size = /^([0-9a-fA-F]{1,12})(?:[ \t]*;.*)?$/.exec(got.text);
          if (!size) throw new HttpFramingError(`chunk size ${JSON.stringify(got.text.slice(0, 20))} is not hexadecimal`);
          remaining = parseInt(size[1]!, 16);
          if (bodyBytes + remaining > maxBytes) throw new HttpAnswerTooLargeError(`body over ${maxBytes} bytes`);
          phase = remaining === 0 ? 'trailers' : 'chunkData';
          data = got.rest;
          break;
        }
        case 'chunkData':
          data = takeRemaining(data);
          if (remaining === 0) phase = 'chunkEnd';
          break;
        case 'chunkEnd': {
          const got = line(data, 2, 'the end of a chunk');
          if (!got) return false;
          if (got.text !== '') throw new HttpFramingError('a chunk longer than its size');
          phase = 'chunkSize';
          data = got.rest;
          break;
        }
        case 'trailers': {
          const got = line(data, MAX_HEAD_BYTES, 'a trailer line');
          if (!got) return false;
          if (got.text === '') phase = 'done';
          data = got.rest;
          break;
        }
        case 'untilClose':
          take(data);
          data = data.subarray(data.length);
          break;
        case 'done':
          leftover += data.length;
          return true;
      }
    }
    return phase === 'done';
  };

  return {
    push,
    end() {
      if (phase === 'untilClose') phase = 'done';
      return phase === 'done';
    },
    get started() {
      return started;
    },
    answer() {
      if (phase !== 'done') throw new Error('the answer is not complete');
      return { status, text: body.length === 1 ? body[0]!.toString('utf8') : Buffer.concat(body, bodyBytes).toString('utf8') };
    },
    get reusable() {
      return phase === 'done' && keepAlive && leftover === 0;
    },
    get leftover() {
      return leftover;
    },
    get keepAliveSeconds() {
      return keepAliveSeconds;
    },
  };
}
