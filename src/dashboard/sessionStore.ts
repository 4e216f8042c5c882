// The dashboard's sign-in sessions, kept in this process's memory (a restart signs everyone out):
// an unguessable id for the HttpOnly cookie, a CSRF token the page sends back in a header, and an
// absolute expiry. What a session may do is the management kit's auth check (http/api).
import { randomBytes } from 'node:crypto';

export interface Session {
  id: string;
  csrfToken: string;
  createdAtMs: number;
  expiresAtMs: number;
}

export interface SessionStore {
  readonly ttlMs: number;
  create(): Session;
  /** The live session with this id; `expired` when it existed but its time is up (then forgotten). */
  get(id: string): Session | 'expired' | undefined;
  delete(id: string): void;
}

export interface SessionStoreOptions {
  /** Lifetime of a session from sign-in. Default 8 hours. */
  ttlMs?: number;
  clock?: { now(): number };
  /** Most sessions held; the oldest goes first beyond it. Default 1000. */
  maxSessions?: number;
}

const token = () => randomBytes(32).toString('base64url');

export function createSessionStore(options: SessionStoreOptions = {}): SessionStore {
  const ttlMs = options.ttlMs ?? 8 * 3600_000;
  const clock = options.clock ?? { now: () => Date.now() };
  const maxSessions = options.maxSessions ?? 1000;
  // Insertion order is creation order, so the first entry is the oldest.
  const sessions = new Map<string, Session>();
  // Ids of sessions that ran out, remembered a while so the page can say "expired" rather than "signed out".
  const expired = new Map<string, number>();
  const sweep = (nowMs: number) => {
    for (const [id, s] of sessions) {
      if (s.expiresAtMs > nowMs) continue;
      sessions.delete(id);
      expired.set(id, nowMs);
    }
    for (const [id, at] of expired) if (at + ttlMs <= nowMs || expired.size > maxSessions) expired.delete(id);
  };
  return {
    ttlMs,
    create() {
      const nowMs = clock.now();
      sweep(nowMs);
      while (sessions.size >= maxSessions) sessions.delete(sessions.keys().next().value!);
      const session = { id: token(), csrfToken: token(), createdAtMs: nowMs, expiresAtMs: nowMs + ttlMs };
      sessions.set(session.id, session);
      return session;
    },
    get(id) {
      const session = sessions.get(id);
      if (!session) return expired.has(id) ? 'expired' : undefined;
      if (session.expiresAtMs > clock.now()) return session;
      sessions.delete(id);
      expired.set(id, clock.now());
      return 'expired';
    },
    delete(id) {
      sessions.delete(id);
      expired.delete(id);
    },
  };
}
