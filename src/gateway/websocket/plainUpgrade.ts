// Requests that ask for an Upgrade other than WebSocket (`Upgrade: h2c`, …). node:http hands every
// Upgrade request to the `upgrade` listener once there is one; before the WebSocket endpoint there
// was none and such requests were served as plain requests. This serves them so again: the
// request, with its body (the bytes node:http read past the head, then the socket's up to
// Content-Length), goes to the `request` handler with a response on the same socket, closed after
// and bounded by a deadline.
import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Whether `req` asks for a WebSocket (`Upgrade: websocket`, any case). */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').split(',').some((p) => p.trim().toLowerCase() === 'websocket');
}

/**
 * node:http ends an Upgrade request's own stream at once (its body is the protocol's), so the
 * handler gets a copy whose body this module feeds.
 */
function copyHead(upgrade: IncomingMessage, socket: Socket): IncomingMessage {
  const req = new IncomingMessage(socket);
  req.method = upgrade.method;
  req.url = upgrade.url;
  req.headers = upgrade.headers;
  req.rawHeaders = upgrade.rawHeaders;
  req.httpVersion = upgrade.httpVersion;
  req.httpVersionMajor = upgrade.httpVersionMajor;
  req.httpVersionMinor = upgrade.httpVersionMinor;
  return req;
}

/** `timeoutMs` bounds the whole exchange, as node:http's requestTimeout bounds a plain one (the socket is no longer its). */
export function serveAsPlainRequest(server: Server, upgrade: IncomingMessage, socket: Socket, head: Buffer, timeoutMs: number): void {
  const req = copyHead(upgrade, socket);
  const deadline = setTimeout(() => socket.destroy(), timeoutMs);
  deadline.unref();
  const declared = Number(req.headers['content-length'] ?? 0);
  let left = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
  const feed = (chunk: Buffer) => {
    const part = chunk.subarray(0, left);
    left -= part.length;
    if (part.length > 0) req.push(part);
    if (left === 0) {
      socket.off('data', feed);
      req.complete = true;
      req.push(null);
    }
  };
  if (left === 0) {
    req.complete = true;
    req.push(null);
  } else {
    if (head.length > 0) feed(head);
    if (left > 0) socket.on('data', feed);
  }
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => {
    clearTimeout(deadline);
    res.detachSocket(socket);
    socket.end();
  });
  socket.once('close', () => {
    clearTimeout(deadline);
    if (!res.writableFinished) res.destroy();
  });
  server.emit('request', req, res);
}
