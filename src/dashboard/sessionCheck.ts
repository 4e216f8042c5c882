// The dashboard session as the management kit's second way in (http/api/createApiApp.ts): the
// HttpOnly cookie names a live session, and a request that changes something must also come from
// this origin (Origin, Sec-Fetch-Site) and carry the session's CSRF token in X-CSRF-Token.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { constantTimeEqual } from '../http/constantTimeEqual.js';
import type { SessionCheck, SessionVerdict } from '../http/api/createApiApp.js';
import type { Session, SessionStore } from './sessionStore.js';

export const SESSION_COOKIE = 'tracehook_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session id in the Cookie header, if any. */
export function sessionIdOf(headers: IncomingHttpHeaders): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * Why a browser request is not from this site, or undefined when it is: Origin must name the host
 * the request was sent to, and Sec-Fetch-Site (sent by every current browser) must not say
 * cross-site. A request without Origin is refused: browsers send it on every POST, PUT, PATCH, DELETE.
 */
export function crossSiteProblem(headers: IncomingHttpHeaders): string | undefined {
  const fetchSite = headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return `Forbidden: cross-site request refused (Sec-Fetch-Site: ${String(fetchSite).slice(0, 20)})`;
  const origin = headers.origin;
  if (!origin) return 'Forbidden: request without an Origin header refused';
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return 'Forbidden: malformed Origin header';
  }
  if (!headers.host || host !== headers.host) return 'Forbidden: cross-site request refused (Origin does not match the host)';
  return undefined;
}

export function createSessionCheck(store: SessionStore): SessionCheck & { session(headers: IncomingHttpHeaders): Session | 'expired' | undefined } {
  const session = (headers: IncomingHttpHeaders) => {
    const id = sessionIdOf(headers);
    return id === undefined ? undefined : store.get(id);
  };
  return {
    session,
    check(req: IncomingMessage): SessionVerdict | undefined {
      const found = session(req.headers);
      if (found === undefined) return sessionIdOf(req.headers) === undefined ? undefined : { ok: false, status: 401, message: 'Unauthenticated: unknown session, sign in again' };
      if (found === 'expired') return { ok: false, status: 401, message: 'Session expired: sign in again' };
      if (SAFE_METHODS.has(req.method ?? 'GET')) return { ok: true };
      const problem = crossSiteProblem(req.headers);
      if (problem) return { ok: false, status: 403, message: problem };
      const csrf = req.headers['x-csrf-token'];
      if (typeof csrf !== 'string' || !constantTimeEqual(csrf, found.csrfToken)) return { ok: false, status: 403, message: 'Forbidden: missing or wrong X-CSRF-Token header' };
      return { ok: true };
    },
  };
}
