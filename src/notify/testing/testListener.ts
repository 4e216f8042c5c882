// A real node:http webhook listener for tests and benchmarks: records every request's raw body and
// headers and answers with whatever `respond` decides (status, headers, body).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  index: number;
  /** The exact bytes received. */
  raw: Buffer;
  body: string;
  headers: IncomingHttpHeaders;
  receivedAt: number;
  status: number;
}

export interface ListenerReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface TestListener {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Resolves once `predicate` holds for the requests so far; rejects after `timeoutMs`. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startTestListener(
  respond: (request: ReceivedRequest) => number | ListenerReply = () => 200,
  path = '/hook',
): Promise<TestListener> {
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const received: ReceivedRequest = { index: requests.length, raw, body: raw.toString('utf8'), headers: req.headers, receivedAt: Date.now(), status: 0 };
      const decided = respond(received);
      const reply = typeof decided === 'number' ? { status: decided } : decided;
      received.status = reply.status;
      requests.push(received);
      for (const w of waiters) w();
      const send = () => {
        res.writeHead(reply.status, { 'Content-Type': 'text/plain', ...reply.headers });
        res.end(reply.body ?? (reply.status === 200 ? 'ok' : `status ${reply.status}`));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    waitFor(predicate, timeoutMs = 10_000) {
      if (predicate(requests)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(requests)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`listener condition not met within ${timeoutMs} ms (${requests.length} requests)`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
