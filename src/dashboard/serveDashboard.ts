// Serves the built dashboard (`dist/web`, made by Vite from `web/`) at `/`: files read (and
// compressed, brotli and gzip) once at start, the right Content-Type, hashed assets cached for a year, the page itself revalidated, and a
// strict Content-Security-Policy (scripts, styles and requests to this origin only). The data the
// page shows comes from the management API under `/api`; nothing here reads or writes state.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { createHash } from 'node:crypto';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

interface StaticFile {
  body: Buffer;
  /** Compressed once at start for text files, when that saves bytes. */
  br?: Buffer;
  gzip?: Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

export interface Dashboard {
  /** Whether the dashboard answers this path (`/`, `/index.html`, `/assets/…`, other files at the root of the build). */
  owns(path: string): boolean;
  serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<string>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** `dir`: the Vite build (dist/web). Missing: `/` answers 503 saying how to build it. */
export function createDashboard(options: { dir: string }): Dashboard {
  const files = new Map<string, StaticFile>();
  let built = true;
  try {
    for (const full of walk(options.dir)) {
      const path = `/${relative(options.dir, full).split(sep).join('/')}`;
      const body = readFileSync(full);
      const type = TYPES[extname(full)] ?? 'application/octet-stream';
      const compressible = /^text\/|javascript|json|svg/.test(type) && body.length > 1024;
      const br = compressible ? brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }) : undefined;
      const gzip = compressible ? gzipSync(body, { level: 9 }) : undefined;
      files.set(path, {
        body,
        br: br && br.length < body.length ? br : undefined,
        gzip: gzip && gzip.length < body.length ? gzip : undefined,
        type,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
        // Vite names what it emits under assets/ by content hash, so a name never changes meaning.
        immutable: path.startsWith('/assets/'),
      });
    }
  } catch {
    built = false;
  }
  const index = files.get('/index.html');
  return {
    owns: (path) => path === '/' || files.has(path) || path.startsWith('/assets/'),
    async serve(req, res, requestId) {
      const path = (req.url ?? '/').split('?')[0]!;
      req.resume();
      const base = { ...SECURITY_HEADERS, 'X-Request-Id': requestId };
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { ...base, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`${req.method} is not allowed on ${path}\n`);
        return 'dashboard';
      }
      const file = path === '/' ? index : files.get(path);
      if (!file) {
        const status = built && index ? 404 : 503;
        const text = status === 404 ? `no dashboard file ${path.slice(0, 100)}\n` : 'The dashboard is not built: run npm run build (npm ci does it too).\n';
        res.writeHead(status, { ...base, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(text);
        return 'dashboard';
      }
      const accepts = String(req.headers['accept-encoding'] ?? '');
      const encoding = file.br && /\bbr\b/.test(accepts) ? 'br' : file.gzip && /\bgzip\b/.test(accepts) ? 'gzip' : undefined;
      const body = encoding ? file[encoding]! : file.body;
      const headers: Record<string, string> = {
        ...base,
        'Content-Type': file.type,
        ETag: file.etag,
        'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        ...(file.br || file.gzip ? { Vary: 'Accept-Encoding' } : {}),
        ...(encoding ? { 'Content-Encoding': encoding } : {}),
      };
      if (req.headers['if-none-match'] === file.etag) {
        res.writeHead(304, headers);
        res.end();
        return 'dashboard';
      }
      res.writeHead(200, { ...headers, 'Content-Length': String(body.length) });
      res.end(req.method === 'HEAD' ? undefined : body);
      return 'dashboard';
    },
  };
}
