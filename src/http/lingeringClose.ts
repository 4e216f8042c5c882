// Lingering close: after answering a request whose body was not read (413, 401, 415 …), stop
// reading it but keep discarding what the client still sends, for a bounded time and size, before
// closing. Closing at once makes the kernel reset the connection while the client is still
// writing, and the client sees EPIPE/ECONNRESET instead of the answer.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface LingerLimits {
  /** Longest a connection lingers after its answer. */
  maxMs: number;
  /** Closed sooner when the client sends nothing for this long. */
  idleMs: number;
  /** Closed sooner once this many bytes were discarded. */
  maxBytes: number;
}

/** Like nginx's lingering_time/lingering_timeout: enough for a client to finish sending a large body. */
export const LINGER_LIMITS: LingerLimits = { maxMs: 30_000, idleMs: 2_000, maxBytes: 64 * 1024 * 1024 };

/** The bookkeeping of one lingering connection; the caller discards the bytes and cuts when told. */
export class Linger {
  #bytes = 0;
  #lastMs: number;
  readonly #startMs: number;
  constructor(
    nowMs: number,
    private readonly limits: LingerLimits = LINGER_LIMITS,
  ) {
    this.#startMs = this.#lastMs = nowMs;
  }

  /** Counts discarded bytes; true when the connection should now be cut. */
  received(bytes: number, nowMs: number): boolean {
    this.#bytes += bytes;
    this.#lastMs = nowMs;
    return this.#bytes > this.limits.maxBytes;
  }

  /** True when the connection has lingered long enough. */
  expired(nowMs: number): boolean {
    return nowMs - this.#startMs > this.limits.maxMs || nowMs - this.#lastMs > this.limits.idleMs;
  }
}

interface LingeringSocket extends Socket {
  destroySoon(): void;
}

/**
 * For node:http: call before writing an answer that closes the connection while the request body
 * is still arriving. node:http ends the socket and destroys it as soon as the answer is written
 * (`socket.destroySoon()`); here that becomes a half-close (our FIN after the answer) while the
 * rest of the body is read and dropped, then a close when the client is done or a limit is reached.
 */
export function lingerAfterAnswer(req: IncomingMessage, limits: LingerLimits = LINGER_LIMITS): void {
  const socket = req.socket as LingeringSocket;
  if (socket.destroyed) return;
  const linger = new Linger(Date.now(), limits);
  req.on('data', (chunk: Buffer) => {
    if (linger.received(chunk.length, Date.now())) socket.destroy();
  });
  req.resume();
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    const timer = setInterval(() => {
      if (linger.expired(Date.now())) this.destroy();
    }, Math.max(50, Math.min(500, limits.idleMs / 2)));
    timer.unref();
    this.once('close', () => clearInterval(timer));
  };
}
