// One HTTP POST of a notification: no redirects followed (node:http never follows them), one
// deadline for the whole exchange, a bounded response read, and the URL policy enforced both on
// literal addresses and, through a custom DNS lookup, on every connection.
import http from 'node:http';
import https from 'node:https';
import type { UrlPolicy } from '../ssrf/urlPolicy.js';

export interface NotificationSenderOptions {
  /** Deadline of one attempt: connect, request, response headers and body read. */
  timeoutMs: number;
  urlPolicy: UrlPolicy;
  /** Most response bytes read; a longer response is cut off and its connection dropped. */
  maxResponseBytes?: number;
  /** Bytes of the response kept for the delivery log. */
  storedResponseBytes?: number;
  /** Concurrent sockets per origin. */
  maxSocketsPerHost?: number;
}

export interface SendResult {
  /** HTTP status; null when no response arrived. */
  statusCode: number | null;
  error: string | null;
  /** Start of the response body, truncated to storedResponseBytes. */
  responseBody: string | null;
  retryAfter: string | undefined;
  latencyMs: number;
}

export interface NotificationSender {
  send(url: string, body: Uint8Array, headers: Record<string, string>): Promise<SendResult>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e?.name === 'BlockedAddressError') return `refused: ${e.message}`;
  return e?.code && !String(e.message).includes(e.code) ? `${e.code}: ${e.message}` : String(e?.message ?? error);
}

export function createNotificationSender(options: NotificationSenderOptions): NotificationSender {
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const storedResponseBytes = options.storedResponseBytes ?? 1024;
  // Idle sockets close after 4 s, under the 5 s keep-alive most servers use, so a reused socket is
  // rarely one the server is closing.
  const agentOptions = { keepAlive: true, maxSockets: options.maxSocketsPerHost ?? 16, timeout: 4_000 };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  function once(url: URL, body: Uint8Array, headers: Record<string, string>, startedAt: number): Promise<SendResult & { reusedReset?: boolean }> {
    return new Promise((resolve) => {
      let settled = false;
      let statusCode: number | null = null;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (error: string | null, reusedReset = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const responseBody = statusCode === null ? null : Buffer.concat(chunks).subarray(0, storedResponseBytes).toString('utf8');
        resolve({ statusCode, error, responseBody, retryAfter, latencyMs: Math.round(performance.now() - startedAt), reusedReset });
      };
      const isHttps = url.protocol === 'https:';
      const req = (isHttps ? https : http).request(
        {
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || (isHttps ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers,
          auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
          agent: agents[url.protocol as 'http:' | 'https:'],
          lookup: options.urlPolicy.lookup,
        },
        (res) => {
          statusCode = res.statusCode ?? null;
          const ra = res.headers['retry-after'];
          retryAfter = Array.isArray(ra) ? ra[0] : ra;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxResponseBytes) {
              chunks.push(chunk.subarray(0, chunk.length - (size - maxResponseBytes)));
              res.destroy();
              finish(null);
            } else chunks.push(chunk);
          });
          res.on('end', () => finish(null));
          res.on('error', (e) => finish(describeError(e)));
          res.on('close', () => finish(null));
        },
      );
      const timer = setTimeout(() => {
        const message = `timed out after ${options.timeoutMs} ms`;
        finish(message);
        req.destroy(new Error(message));
      }, options.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => finish(describeError(e), req.reusedSocket && e.code === 'ECONNRESET' && statusCode === null));
      req.end(body);
    });
  }

  return {
    async send(rawUrl, body, headers) {
      const startedAt = performance.now();
      const failed = (error: string): SendResult => ({ statusCode: null, error, responseBody: null, retryAfter: undefined, latencyMs: 0 });
      const refused = options.urlPolicy.checkSyntax(rawUrl);
      if (refused) return failed(`refused: ${refused}`);
      // Literal IPs skip DNS, so checkSyntax above is their check; names are checked in lookup.
      const url = new URL(rawUrl);
      const first = await once(url, body, headers, startedAt);
      // A keep-alive socket the server closed just as we reused it (Node's documented race): send
      // once more on a fresh socket instead of counting a failure. Should the first copy have
      // arrived after all, the duplicate carries the same event id.
      const result = first.reusedReset ? await once(url, body, headers, startedAt) : first;
      delete result.reusedReset;
      return result;
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
