// Answers connection-level protocol errors (malformed HTTP, oversized headers, header or request
// timeouts) with a JSON-RPC error body instead of Node's bare default, then closes the socket.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

interface SocketWithMessage extends Duplex {
  // Node keeps the in-progress response here; if its headers went out, raw bytes would corrupt it.
  _httpMessage?: { headersSent?: boolean };
}

function statusFor(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return 408;
  return 400;
}

const MESSAGES: Record<number, string> = {
  400: 'Invalid request: malformed HTTP request',
  408: 'Invalid request: request not received in time',
  431: 'Invalid request: request headers too large',
};

export function handleClientError(error: Error & { code?: string }, socket: Duplex): void {
  const s = socket as SocketWithMessage;
  if (error.code === 'ECONNRESET' || !s.writable || s._httpMessage?.headersSent) {
    s.destroy();
    return;
  }
  const status = statusFor(error.code);
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: MESSAGES[status] } });
  s.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
