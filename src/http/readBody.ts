// Reads a request body with a byte limit and an idle timeout, so oversized or slow bodies cannot
// exhaust memory or hold a connection forever.
import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
  }
}

export class BodyTimeoutError extends Error {
  override name = 'BodyTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`request body not received within ${timeoutMs} ms`);
  }
}

export interface ReadBodyOptions {
  maxBytes: number;
  /** Whole-body deadline. */
  timeoutMs: number;
}

/** Collects the body as one Buffer; rejects with BodyTooLargeError/BodyTimeoutError. */
export function readBody(req: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      req.resume();
      reject(new BodyTooLargeError(options.maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: Error | null, body?: Buffer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (error) {
        req.resume();
        reject(error);
      } else resolve(body!);
    };
    const timer = setTimeout(() => finish(new BodyTimeoutError(options.timeoutMs)), options.timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > options.maxBytes) finish(new BodyTooLargeError(options.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(null, Buffer.concat(chunks, size));
    const onError = (error: Error) => finish(error);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
