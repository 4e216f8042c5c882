// CORS for browser callers: which origins get `Access-Control-Allow-Origin`, and preflight answers.
// Per-key origin allow-lists are enforced separately (middleware/auth), this only speaks to browsers.
import type { IncomingMessage } from 'node:http';

export interface CorsOptions {
  /** Allowed origins, or `['*']` for any (the default). An empty list disables CORS headers. */
  origins?: readonly string[];
  /** How long browsers may cache a preflight answer. */
  maxAgeSec?: number;
}

/** Headers as a flat `[name, value, name, value, …]` list (what `res.writeHead` takes fastest). */
export type HeaderList = readonly string[];

export interface Cors {
  /** Headers for a normal response to a request with this Origin (may be empty). */
  headersFor(origin: string | undefined): HeaderList;
  /** Headers for an OPTIONS preflight. */
  preflightHeaders(req: IncomingMessage): Record<string, string>;
}

const EXPOSE = 'X-Request-Id, Retry-After, X-Cache, X-Trace-Source';
const HEADER_LIST = /^[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+)*$/;

export function createCors(options: CorsOptions = {}): Cors {
  const origins = options.origins ?? ['*'];
  const any = origins.includes('*');
  const allowed = new Set(origins.map((o) => o.toLowerCase().replace(/\/$/, '')));
  const maxAge = String(options.maxAgeSec ?? 600);
  const anyHeaders: HeaderList = Object.freeze(['Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', EXPOSE]);
  const varyOnly: HeaderList = Object.freeze(['Vary', 'Origin']);
  const none: HeaderList = Object.freeze([]);

  const headersFor = (origin: string | undefined): HeaderList => {
    // Only browsers send Origin, and only they read CORS headers: server-side callers get none.
    if (origin === undefined) return none;
    if (any) return anyHeaders;
    if (origin && allowed.has(origin.toLowerCase())) {
      return ['Access-Control-Allow-Origin', origin, 'Access-Control-Expose-Headers', EXPOSE, 'Vary', 'Origin'];
    }
    return allowed.size ? varyOnly : none;
  };

  return {
    headersFor,
    preflightHeaders(req) {
      const list = headersFor(req.headers.origin);
      const headers: Record<string, string> = {};
      for (let i = 0; i < list.length; i += 2) headers[list[i]!] = list[i + 1]!;
      // An origin that is not allowed is told nothing (no methods, no headers), so the browser stops.
      if (!('Access-Control-Allow-Origin' in headers)) return headers;
      const requested = req.headers['access-control-request-headers'];
      headers['Access-Control-Allow-Methods'] = 'POST, GET, OPTIONS';
      headers['Access-Control-Allow-Headers'] = typeof requested === 'string' && requested.length <= 1000 && HEADER_LIST.test(requested) ? requested : 'Content-Type';
      headers['Access-Control-Max-Age'] = maxAge;
      return headers;
    },
  };
}
