// The reference listener for plain node:http: `http.createServer(createNodeListener({…}))`, or call
// it from your own request handler for the webhook path.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, flattenHeaders, handleNotification, type ListenerOptions, type ListenerReply } from './handleNotification.js';
import { RawBodyTooLargeError, readRawBody } from './readRawBody.js';

export function sendReply(res: ServerResponse, reply: ListenerReply): void {
  res.writeHead(reply.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(reply.body) });
  res.end(reply.body);
}

/** Verifies and handles a notification on a raw node:http request. */
export async function handleNodeRequest<E>(req: IncomingMessage, res: ServerResponse, options: ListenerOptions<E>): Promise<void> {
  if (req.method !== 'POST') {
    req.resume();
    return sendReply(res, { status: 405, body: JSON.stringify({ error: 'use POST' }) });
  }
  let raw: Buffer;
  try {
    raw = await readRawBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  } catch (error) {
    const status = error instanceof RawBodyTooLargeError ? 413 : 400;
    return sendReply(res, { status, body: JSON.stringify({ error: (error as Error).message }) });
  }
  sendReply(res, await handleNotification(raw, flattenHeaders(req.headers), options));
}

/** A node:http request listener implementing the reference webhook listener. */
export function createNodeListener<E = unknown>(options: ListenerOptions<E>): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return (req, res) => handleNodeRequest(req, res, options);
}
