// The gateway's listening socket. Keep-alive JSON-RPC requests of the plain shape (see
// parseRequestHead) are parsed and answered here, with one write per answer and no per-request
// stream objects; node:http's request machinery is most of the cost of a cached answer. Any other
// request hands its connection, with the bytes read so far, to the node:http server for good, so
// every other route, and every malformed or unusual request, gets node:http's behaviour. A body
// over the limit is dropped as it arrives and answered with a lingering close (http/lingeringClose).
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { STATUS_CODES, type Server as HttpServer } from 'node:http';
import { BodyTooLargeError } from '../../http/readBody.js';
import { Linger } from '../../http/lingeringClose.js';
import type { HeaderList } from '../cors.js';
import type { RpcExchange } from '../rpcExchange.js';
import { parseRequestHead, type RequestHead } from './parseRequestHead.js';

/** An exchange served by the fast path, with what the gateway needs besides the RpcExchange. */
export interface FastExchange<T> extends RpcExchange {
  readonly head: RequestHead;
  /** What `route` returned for the request's path. */
  readonly route: T;
  /** Status of the answer written, 0 before. */
  readonly status: number;
}

export interface FastFrontOptions<T> {
  /** Receives the connections the fast path does not serve. */
  httpServer: HttpServer;
  /** What serves requests to this path (no query), or undefined when the fast path does not. */
  route(path: string): T | undefined;
  /** Serves one request; must answer (respond or destroy) before it settles. */
  handle(ex: FastExchange<T>): Promise<void>;
  maxBodyBytes: number;
  /** Largest request head served here; larger heads go to node:http (which answers 431). */
  maxHeadBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** How often deadlines are checked, for all connections at once. */
  checkIntervalMs: number;
  maxConnections?: number;
  /** Told of each connection handed to node:http. */
  onHandOff?: () => void;
}

export interface FastFront {
  readonly server: NetServer;
  /** Connections currently owned by the fast path (not handed to node:http). */
  connectionCount(): number;
  /** From now on connections close after their answer; idle ones close now. */
  closeIdle(): void;
  /** Cuts every connection the fast path still owns. */
  destroyAll(): void;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

interface HandleWithConsumed {
  _consumed?: boolean;
}

/** Creates the listening socket (not yet listening: call `server.listen`). */
export function createFastFront<T>(options: FastFrontOptions<T>): FastFront {
  const connections = new Set<FastConnection>();
  let closing = false;
  let dateMs = 0;
  let dateText = '';
  const keepAliveHeader = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveTimeoutMs / 1000)}\r\n\r\n`;

  const httpDate = (): string => {
    const now = Date.now();
    if (now - dateMs >= 1000) {
      dateMs = now - (now % 1000);
      dateText = new Date(dateMs).toUTCString();
    }
    return dateText;
  };

  const forget = (c: FastConnection) => connections.delete(c);

  class FastConnection {
    /** Bytes received and not yet served. */
    pending: Buffer = EMPTY;
    /** While a body is incomplete: its chunks, their size, and the size that completes the request. */
    parts: Buffer[] = [];
    partBytes = 0;
    waitingFor = 0;
    /** Where the search for the end of the head resumes. */
    searchFrom = 0;
    busy = false;
    gone = false;
    /** Bytes of a refused (oversized) body still to come: dropped as they arrive, never buffered. */
    discardLeft = 0;
    /** Set once the answer to a refused body is written: the rest is dropped until the connection closes. */
    linger: Linger | undefined;
    /** Date.now() of the first byte of the request being received. */
    requestStartedMs = 0;
    lastActiveMs = Date.now();
    readonly onData = (chunk: Buffer) => this.received(chunk);
    readonly onEnd = () => {
      // The client closed its side: like node:http (without httpAllowHalfOpen), the call in
      // flight is aborted and the connection closed.
      this.socket.destroy();
    };
    readonly onClose = () => {
      this.gone = true;
      forget(this);
    };

    constructor(readonly socket: Socket) {
      socket.on('data', this.onData);
      socket.on('end', this.onEnd);
      socket.on('error', noop);
      socket.on('close', this.onClose);
    }

    received(chunk: Buffer): void {
      if (this.linger) {
        if (this.linger.received(chunk.length, Date.now())) this.socket.destroy();
        return;
      }
      if (this.discardLeft > 0) {
        // Only the refused body is dropped; bytes after it would be another request, which
        // this connection (closing after its answer) never serves.
        this.discardLeft = Math.max(0, this.discardLeft - chunk.length);
        return;
      }
      if (this.waitingFor > 0) {
        // Body chunks are joined once, when the request is complete.
        this.parts.push(chunk);
        this.partBytes += chunk.length;
        if (this.partBytes < this.waitingFor) return;
        this.pending = Buffer.concat(this.parts, this.partBytes);
        this.parts = [];
        this.waitingFor = 0;
      } else if (this.pending.length === 0) {
        this.pending = chunk;
        if (!this.busy) this.requestStartedMs = Date.now();
      } else this.pending = Buffer.concat([this.pending, chunk]);
      // A client that keeps sending while its request is served is read no further than one request ahead.
      if (this.busy && this.pending.length > options.maxBodyBytes + options.maxHeadBytes) this.socket.pause();
      if (!this.busy) this.next();
    }

    /** Serves the next complete request in `pending`, if any. */
    next(): void {
      if (this.gone) return;
      const buf = this.pending;
      if (buf.length === 0) return;
      const headEnd = buf.indexOf(HEADER_END, this.searchFrom);
      if (headEnd === -1) {
        if (buf.length > options.maxHeadBytes) this.handOff();
        else this.searchFrom = Math.max(0, buf.length - 3);
        return;
      }
      if (headEnd > options.maxHeadBytes) return this.handOff();
      const head = parseRequestHead(buf, 0, headEnd);
      if (!head) return this.handOff();
      const route = options.route(pathOf(head.target));
      if (route === undefined) return this.handOff();
      if (head.contentLength > options.maxBodyBytes) return this.refuseBody(head, route, buf.length - headEnd - 4);
      const end = headEnd + 4 + head.contentLength;
      if (buf.length < end) {
        this.parts = [buf];
        this.partBytes = buf.length;
        this.waitingFor = end;
        return;
      }
      const body = buf.subarray(headEnd + 4, end);
      this.pending = end === buf.length ? EMPTY : buf.subarray(end);
      this.searchFrom = 0;
      this.busy = true;
      const ex = new Exchange(this, head, route, body);
      options.handle(ex).then(
        () => this.served(ex),
        () => this.served(ex),
      );
    }

    /**
     * A body over the limit is never buffered: the request is served without it (the endpoint
     * answers 413, or 401 and the like first) while its bytes are dropped, then the connection
     * closes with a lingering close so the client can read the answer.
     */
    refuseBody(head: RequestHead, route: T, bodyBytesHere: number): void {
      this.discardLeft = head.contentLength - bodyBytesHere;
      this.pending = EMPTY;
      this.searchFrom = 0;
      this.busy = true;
      const ex = new Exchange(this, head, route, EMPTY, true);
      options.handle(ex).then(
        () => this.served(ex),
        () => this.served(ex),
      );
    }

    served(ex: Exchange): void {
      this.busy = false;
      this.lastActiveMs = Date.now();
      if (!ex.settled) this.socket.destroy();
      if (this.gone || this.socket.destroyed) return;
      if (ex.bodyRefused) {
        this.linger = new Linger(this.lastActiveMs);
        this.discardLeft = 0;
        this.socket.end();
        if (this.socket.isPaused()) this.socket.resume();
        return;
      }
      if (!ex.keepAlive || closing) {
        this.socket.destroySoon();
        return;
      }
      if (this.socket.isPaused()) this.socket.resume();
      if (this.pending.length === 0) return;
      this.requestStartedMs = this.lastActiveMs;
      // Pipelined requests wait until the answers before them are on their way.
      if (this.socket.writableNeedDrain) this.socket.once('drain', () => this.next());
      else this.next();
    }

    /** Gives the connection, with every byte not yet served, to node:http. */
    handOff(): void {
      const { socket } = this;
      socket.pause();
      socket.off('data', this.onData);
      socket.off('end', this.onEnd);
      socket.off('error', noop);
      socket.off('close', this.onClose);
      forget(this);
      this.gone = true;
      options.onHandOff?.();
      if (this.pending.length) socket.unshift(this.pending);
      this.pending = EMPTY;
      // node:http reads straight from the handle unless it was consumed before; then it would skip
      // the bytes unshifted above. Marked consumed, it reads through the stream, in order.
      const handle = (socket as unknown as { _handle?: HandleWithConsumed })._handle;
      if (handle) handle._consumed = true;
      options.httpServer.emit('connection', socket);
      socket.resume();
    }

    /** Deadlines: headers, whole request, idle keep-alive. */
    check(nowMs: number): void {
      if (this.linger) {
        if (this.linger.expired(nowMs)) this.socket.destroy();
        return;
      }
      if (this.busy) return;
      if (this.pending.length === 0 && this.waitingFor === 0) {
        if (nowMs - this.lastActiveMs > options.keepAliveTimeoutMs) this.socket.destroy();
        return;
      }
      const limit = this.waitingFor > 0 ? options.requestTimeoutMs : options.headersTimeoutMs;
      if (nowMs - this.requestStartedMs > limit) this.timedOut();
    }

    timedOut(): void {
      this.pending = EMPTY;
      this.parts = [];
      this.waitingFor = 0;
      this.socket.pause();
      const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: request not received in time' } });
      this.socket.write(`HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      this.socket.destroySoon();
    }
  }

  class Exchange implements FastExchange<T> {
    status = 0;
    readonly httpMethod = 'POST';
    readonly contentType: string | undefined;
    readonly origin: string | undefined;
    /** False once either side asked to close after this answer. */
    keepAlive: boolean;
    #done = false;
    #onClose: (() => void) | undefined;

    constructor(
      private readonly conn: FastConnection,
      readonly head: RequestHead,
      readonly route: T,
      private readonly payload: Buffer,
      /** The body is over the limit and is being dropped, not read. */
      readonly bodyRefused = false,
    ) {
      this.contentType = head.contentType;
      this.origin = head.origin;
      this.keepAlive = head.keepAlive && !bodyRefused;
    }

    body(maxBytes: number): Promise<Buffer> {
      if (this.bodyRefused) return Promise.reject(new BodyTooLargeError(options.maxBodyBytes));
      return this.payload.length <= maxBytes ? Promise.resolve(this.payload) : Promise.reject(new BodyTooLargeError(maxBytes));
    }

    get settled(): boolean {
      return this.#done || this.conn.gone;
    }

    respond(status: number, headers: HeaderList, body: string): void {
      if (this.settled) return;
      this.#settle();
      this.status = status;
      let text = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
      for (let i = 0; i < headers.length; i += 2) {
        const name = headers[i]!;
        const value = headers[i + 1]!;
        if (name === 'Connection') {
          if (value === 'close') this.keepAlive = false;
          continue;
        }
        text += `${name}: ${value}\r\n`;
      }
      text += `Date: ${httpDate()}\r\n`;
      text += this.keepAlive && !closing ? keepAliveHeader : 'Connection: close\r\n\r\n';
      this.conn.socket.write(body ? text + body : text);
    }

    destroy(): void {
      this.#settle();
      this.conn.socket.destroy();
    }

    onAbort(listener: () => void): void {
      if (this.#done) return;
      if (this.conn.gone) {
        listener();
        return;
      }
      // Removed once answered: a keep-alive socket outlives many exchanges.
      this.#onClose = () => listener();
      this.conn.socket.once('close', this.#onClose);
    }

    #settle(): void {
      this.#done = true;
      if (this.#onClose) this.conn.socket.off('close', this.#onClose);
    }
  }

  const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    connections.add(new FastConnection(socket));
  });
  if (options.maxConnections !== undefined) server.maxConnections = options.maxConnections;
  const timer = setInterval(() => {
    const now = Date.now();
    for (const c of connections) c.check(now);
  }, options.checkIntervalMs);
  timer.unref();
  server.on('close', () => clearInterval(timer));

  return {
    server,
    connectionCount: () => connections.size,
    closeIdle() {
      closing = true;
      for (const c of connections) if (!c.busy && !c.linger && c.pending.length === 0 && c.waitingFor === 0) c.socket.destroySoon();
    },
    destroyAll() {
      for (const c of connections) c.socket.destroy();
    },
  };
}

function pathOf(target: string): string {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
}

function noop(): void {}
