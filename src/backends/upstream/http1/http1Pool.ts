// Keep-alive HTTP/1.1 connections to one node, each carrying one POST at a time: the request is
// one socket write, the answer is read by parseHttpAnswer.ts. This is the upstream hop's hot path;
// node:http's client costs 4-5x the CPU per exchange for the same work (figures in
// docs/performance.md), which on a 2-core box is most of the hop. Failures are the upstream error
// classes of rpc/errors.ts, created here with the upstream's label, never its URL.
import net from 'node:net';
import tls from 'node:tls';
import {
  UpstreamAbortedError,
  UpstreamAnswerTooLargeError,
  UpstreamBadAnswerError,
  UpstreamConnectionError,
  UpstreamTimeoutError,
} from '../../../rpc/errors.js';
import { createHttpAnswerReader, HttpAnswerTooLargeError, HttpFramingError, type HttpAnswer } from './parseHttpAnswer.js';

export interface Http1PoolOptions {
  url: URL;
  /** Request headers sent on every POST (besides Host and Content-Length). */
  headers: Readonly<Record<string, string>>;
  label: string;
  maxSockets: number;
  maxResponseBytes: number;
  /** How long an idle connection is kept when the node does not say. Default 30,000 ms. */
  idleMs?: number;
}

export interface PostOptions {
  deadlineMs: number;
  signal?: AbortSignal;
  /**
   * The request may be sent again when a reused connection turns out to have been closed (FIN) by
   * the node before any answer byte (the keep-alive race). False for writes: they are never resent.
   */
  resendOnStale: boolean;
}

export interface Http1Pool {
  post(body: string, options: PostOptions): Promise<HttpAnswer>;
  /** Closes every connection; later posts open new ones. */
  close(): void;
}

/** An exchange in progress on a connection: where its bytes and its end go. */
interface Exchange {
  data(chunk: Buffer): void;
  ended(): void;
  failed(error: NodeJS.ErrnoException): void;
}

interface Connection {
  socket: net.Socket;
  /** Whether it has carried an exchange before (a node may have closed it meanwhile). */
  used: boolean;
  /** The exchange it carries; undefined while idle. */
  exchange: Exchange | undefined;
  /** When it went idle (Date.now()), and how long the node lets it stay so, in ms. */
  idleSince: number;
  idleMs: number;
}

const DEFAULT_IDLE_MS = 30_000;
/** What an exchange rejects with when it met the keep-alive race (never seen outside `post`). */
const STALE = Object.freeze({ stale: true });
/** How often idle connections past their lifetime are closed. */
const IDLE_SWEEP_MS = 1_000;

export function createHttp1Pool(options: Http1PoolOptions): Http1Pool {
  const { url, label, maxSockets, maxResponseBytes } = options;
  const secure = url.protocol === 'https:';
  const port = Number(url.port) || (secure ? 443 : 80);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const path = `${url.pathname || '/'}${url.search}`;
  const fixedHead = `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${Object.entries(options.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}`;
  const defaultIdleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  /** Idle connections, the most recently used last. */
  const idle: Connection[] = [];
  const waiters: ((connection: Connection | undefined) => void)[] = [];
  let open = 0;
  let sweeper: NodeJS.Timeout | undefined;

  const dropIdle = (connection: Connection) => {
    const at = idle.indexOf(connection);
    if (at >= 0) idle.splice(at, 1);
  };

  /** Closes idle connections past their lifetime; stops when none is idle. */
  const sweep = () => {
    const now = Date.now();
    for (const connection of idle.filter((c) => now - c.idleSince >= c.idleMs)) {
      dropIdle(connection);
      connection.socket.destroy();
    }
    if (idle.length === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };

  /** A new connection; counted in `open` until its socket closes. Its handlers stay for its life. */
  const connect = (): Connection => {
    const socket = secure ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }) : net.connect({ host, port });
    socket.setNoDelay(true);
    const connection: Connection = { socket, used: false, exchange: undefined, idleSince: 0, idleMs: defaultIdleMs };
    open++;
    // Bytes on an idle connection belong to no request: it is not used again.
    socket.on('data', (chunk: Buffer) => (connection.exchange ? connection.exchange.data(chunk) : socket.destroy()));
    socket.on('end', () => connection.exchange?.ended());
    socket.on('error', (error: NodeJS.ErrnoException) => connection.exchange?.failed(error));
    socket.once('close', () => {
      open--;
      connection.exchange?.ended();
      dropIdle(connection);
      // A slot is free: a waiter gets a new connection.
      const waiter = waiters.shift();
      if (waiter) waiter(undefined);
    });
    return connection;
  };

  /** An idle connection, a new one, or a wait for one when `maxSockets` are busy. */
  const acquire = (): Connection | Promise<Connection | undefined> => {
    const now = Date.now();
    for (let reused = idle.pop(); reused; reused = idle.pop()) {
      if (now - reused.idleSince < reused.idleMs && !reused.socket.destroyed) return reused;
      reused.socket.destroy();
    }
    if (open < maxSockets) return connect();
    return new Promise((resolve) => waiters.push(resolve));
  };

  const release = (connection: Connection) => {
    const waiter = waiters.shift();
    if (waiter) return waiter(connection);
    connection.idleSince = Date.now();
    idle.push(connection);
    sweeper ??= setInterval(sweep, IDLE_SWEEP_MS).unref();
  };

  /** One exchange on one connection. `stale`: rejects with it when a used connection was closed before any answer byte. */
  const exchange = (connection: Connection, request: string, options: PostOptions, deadline: number, stale: object): Promise<HttpAnswer> =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const { socket } = connection;
      const reader = createHttpAnswerReader(maxResponseBytes);
      const { signal } = options;
      let done = false;
      const finish = (error: object | undefined) => {
        if (done) return;
        done = true;
        connection.exchange = undefined;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (error) {
          socket.destroy();
          return reject(error);
        }
        const answer = reader.answer();
        if (reader.reusable && !socket.destroyed) {
          connection.used = true;
          if (reader.keepAliveSeconds !== undefined) connection.idleMs = Math.max(0, reader.keepAliveSeconds * 1000 - 1000);
          release(connection);
        } else socket.destroy();
        resolve(answer);
      };
      const fail = (error: unknown) => {
        if (error instanceof HttpAnswerTooLargeError) return finish(new UpstreamAnswerTooLargeError(label, maxResponseBytes));
        if (error instanceof HttpFramingError) return finish(new UpstreamBadAnswerError(label, `HTTP ${error.message}`));
        finish(error as Error);
      };
      const onAbort = () => finish(new UpstreamAbortedError(label));
      const timer = setTimeout(() => finish(new UpstreamTimeoutError(label, options.deadlineMs)), Math.max(0, deadline - Date.now()));
      if (signal) {
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
      }
      connection.exchange = {
        data(chunk) {
          try {
            if (reader.push(chunk)) finish(undefined);
          } catch (error) {
            fail(error);
          }
        },
        ended() {
          if (reader.end()) return finish(undefined);
          finish(connection.used && !reader.started ? stale : new UpstreamConnectionError(label, 'connection closed during the answer'));
        },
        // A reset is the node's doing (or a broken network), not the keep-alive race: no resend.
        failed(error) {
          finish(new UpstreamConnectionError(label, `connection failed (${error.code ?? error.message})`, { cause: error }));
        },
      };
      if (socket.destroyed || socket.readableEnded) return connection.exchange.ended();
      socket.write(request, 'utf8');
    });

  const post = async (body: string, postOptions: PostOptions): Promise<HttpAnswer> => {
    const deadline = Date.now() + postOptions.deadlineMs;
    const request = `${fixedHead}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const stale = STALE;
    for (let attempt = 0; ; attempt++) {
      let connection: Connection | undefined;
      const got = acquire();
      if (got instanceof Promise) {
        connection = await waitFor(got, deadline, postOptions);
        connection ??= connect();
      } else connection = got;
      try {
        return await exchange(connection, request, postOptions, deadline, stale);
      } catch (error) {
        // The keep-alive race: the node closed a connection we had kept. Nothing of this request was
        // answered; a read is asked again on a fresh connection, a write fails instead.
        if (error !== stale) throw error;
        if (!postOptions.resendOnStale || attempt > 0) throw new UpstreamConnectionError(label, 'the node closed a kept-alive connection before answering');
      }
    }
  };

  /** Waits for a free connection within the deadline and the caller's signal. */
  const waitFor = (got: Promise<Connection | undefined>, deadline: number, postOptions: PostOptions): Promise<Connection | undefined> =>
    new Promise((resolve, reject) => {
      const resolveWaiter = waiters.at(-1)!;
      let left = false;
      const leave = (error: Error) => {
        left = true;
        const at = waiters.indexOf(resolveWaiter);
        if (at >= 0) waiters.splice(at, 1);
        clearTimeout(timer);
        postOptions.signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      const timer = setTimeout(() => leave(new UpstreamTimeoutError(label, postOptions.deadlineMs)), Math.max(0, deadline - Date.now()));
      const onAbort = () => leave(new UpstreamAbortedError(label));
      if (postOptions.signal?.aborted) return onAbort();
      postOptions.signal?.addEventListener('abort', onAbort, { once: true });
      void got.then((connection) => {
        // Handed over just as this caller left: the connection goes back, or its free slot on.
        if (left) return connection ? release(connection) : waiters.shift()?.(undefined);
        clearTimeout(timer);
        postOptions.signal?.removeEventListener('abort', onAbort);
        resolve(connection);
      });
    });

  return {
    post,
    close() {
      for (const connection of idle.splice(0)) connection.socket.destroy();
      clearInterval(sweeper);
      sweeper = undefined;
    },
  };
}
