// Express adapter: `app.post('/webhook', expressListener({…}))`. It reads the raw body itself, so
// mount it before any JSON body parser (or on a router without one). If express.raw() ran first
// its Buffer is used; if a parser already consumed the stream, the request fails loudly with 500
// (and so is retried) rather than verifying a re-serialised body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, flattenHeaders, handleNotification, type ListenerOptions } from './handleNotification.js';
import { handleNodeRequest, sendReply } from './nodeListener.js';

/** The parts of Express's request this adapter uses (Express's Request satisfies it). */
export interface ExpressLikeRequest extends IncomingMessage {
  body?: unknown;
}

export class BodyAlreadyParsedError extends Error {
  override name = 'BodyAlreadyParsedError';
  constructor() {
    super('tracehook listener: the request body was already consumed by a body parser (e.g. express.json()); mount the listener before it, or use express.raw({ type: "application/json" })');
  }
}

export function expressListener<E = unknown>(options: ListenerOptions<E>): (req: ExpressLikeRequest, res: ServerResponse, next: (error?: unknown) => void) => void {
  return (req, res, next) => {
    if (Buffer.isBuffer(req.body)) {
      if (req.body.length > (options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) return sendReply(res, { status: 413, body: JSON.stringify({ error: 'body too large' }) });
      handleNotification(req.body, flattenHeaders(req.headers), options).then((reply) => sendReply(res, reply), next);
      return;
    }
    // body-parser marks a parsed request with `_body`; a consumed stream has ended.
    if ((req as { _body?: unknown })._body === true || req.readableEnded) return next(new BodyAlreadyParsedError());
    handleNodeRequest(req, res, options).catch(next);
  };
}
