// One HTTP request to the JSON-RPC endpoint and its answer, independent of the HTTP server that
// parsed it: node:http (nodeExchange below) or the keep-alive fast path (fastPath/). The endpoint
// only reads the few request fields it needs and writes one whole answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RpcConnection } from '../backends/embedded/methodTable.js';
import type { HeaderList } from './cors.js';
import { readRequestBody } from './framing/readRequestBody.js';
import { lingerAfterAnswer } from '../http/lingeringClose.js';

export interface RpcExchange {
  /** HTTP method, upper case. */
  readonly httpMethod: string;
  readonly contentType: string | undefined;
  readonly origin: string | undefined;
  /** The whole body; rejects with BodyTooLargeError over `maxBytes`, BodyAbortedError if the client leaves. */
  body(maxBytes: number): Promise<Buffer>;
  /** True once an answer was written or the connection is gone. */
  readonly settled: boolean;
  /** Writes the whole answer (status, headers, body); ignored once settled. */
  respond(status: number, headers: HeaderList, body: string): void;
  /** Drops the connection without an answer (the client left, or the request timed out). */
  destroy(): void;
  /** Calls `listener` once if the client goes away before the answer is written (at once if it already has). */
  onAbort(listener: () => void): void;
  /** The connection when it takes notifications (a WebSocket message's); absent over HTTP. */
  readonly connection?: RpcConnection;
}

function closes(headers: HeaderList): boolean {
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === 'Connection' && headers[i + 1] === 'close') return true;
  return false;
}

/** An exchange over node:http's request and response objects. */
export function nodeExchange(req: IncomingMessage, res: ServerResponse): RpcExchange {
  return {
    httpMethod: req.method ?? '',
    contentType: req.headers['content-type'],
    origin: req.headers.origin,
    body: (maxBytes) => readRequestBody(req, maxBytes),
    get settled() {
      return res.headersSent || res.destroyed;
    },
    respond(status, headers, body) {
      if (res.headersSent || res.destroyed) return;
      // An answer that closes the connection before the body is in (413, 401, 415…) must not
      // reset a client still sending it: it would get EPIPE instead of the answer.
      if (!req.complete && closes(headers)) lingerAfterAnswer(req);
      res.writeHead(status, headers as string[]);
      res.end(body);
    },
    destroy: () => res.destroy(),
    onAbort(listener) {
      if (res.destroyed && !res.writableFinished) listener();
      else res.once('close', () => !res.writableFinished && listener());
    },
  };
}
