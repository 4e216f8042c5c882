// The dashboard's sign-in routes on the management kit (`/api/session`, `/api/auth-token`): the
// auth token in a POST body buys a session cookie (HttpOnly, SameSite=Strict, Max-Age), GET says
// whether the cookie is still good and hands the page its CSRF token, DELETE signs out.
import { z } from 'zod';
import { defineApiRoute, ApiReply, type ApiRoute } from '../http/api/apiRoute.js';
import { constantTimeEqual } from '../http/constantTimeEqual.js';
import { RpcError } from '../rpc/errors.js';
import type { SessionStore } from './sessionStore.js';
import { SESSION_COOKIE, crossSiteProblem, sessionIdOf, type createSessionCheck } from './sessionCheck.js';

const TAG = 'Dashboard';
const SignInBody = z.object({ token: z.string({ error: 'is required' }).min(1, { error: 'is required' }).max(1024, { error: 'is too long' }) });
const SESSION_SCHEMA = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['csrf_token', 'expires_at'],
      properties: { csrf_token: { type: 'string', description: 'send back in X-CSRF-Token on every POST, PUT, PATCH and DELETE' }, expires_at: { type: 'string', format: 'date-time' } },
    },
  },
} as const;

export interface SessionRoutesOptions {
  store: SessionStore;
  check: ReturnType<typeof createSessionCheck>;
  authToken: string | undefined;
}

const unauthenticated = (message: string) => new RpcError(message, { httpStatus: 401 });

export function createSessionRoutes(options: SessionRoutesOptions): ApiRoute[] {
  const { store } = options;
  const cookie = (value: string, maxAgeSec: number) => `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSec}`;
  const view = (s: { csrfToken: string; expiresAtMs: number }) => ({ data: { csrf_token: s.csrfToken, expires_at: new Date(s.expiresAtMs).toISOString() } });
  return [
    defineApiRoute({
      method: 'POST',
      path: '/session',
      operationId: 'sign-in',
      summary: 'Sign in to the dashboard with the auth token: sets the session cookie (HttpOnly, SameSite=Strict) and returns the CSRF token.',
      tag: TAG,
      auth: false,
      body: SignInBody,
      response: SESSION_SCHEMA,
      errors: { 403: 'Cross-site request' },
      async handle({ body, headers }) {
        // Sign-in is a change too: a forged one would sign the victim into the attacker's session.
        const problem = crossSiteProblem(headers);
        if (problem) throw new RpcError(problem, { httpStatus: 403 });
        if (!options.authToken || !constantTimeEqual(body.token, options.authToken)) throw new RpcError('token: wrong auth token', { httpStatus: 401, data: { field: 'token' } });
        const old = sessionIdOf(headers);
        if (old) store.delete(old);
        const session = store.create();
        return new ApiReply(200, view(session), { 'Set-Cookie': cookie(session.id, Math.floor(store.ttlMs / 1000)) });
      },
    }),
    defineApiRoute({
      method: 'GET',
      path: '/session',
      operationId: 'session',
      summary: 'The current dashboard session: its CSRF token and expiry (401 when signed out or expired).',
      tag: TAG,
      auth: false,
      response: SESSION_SCHEMA,
      async handle({ headers }) {
        const session = options.check.session(headers);
        if (session === 'expired') throw unauthenticated('Session expired: sign in again');
        if (!session) throw unauthenticated('Unauthenticated: not signed in');
        return view(session);
      },
    }),
    defineApiRoute({
      method: 'DELETE',
      path: '/session',
      operationId: 'sign-out',
      summary: 'Sign out: ends the session and clears its cookie.',
      tag: TAG,
      response: { type: 'object', properties: { data: { type: 'object', properties: { signed_out: { type: 'boolean' } } } } },
      async handle({ headers }) {
        const id = sessionIdOf(headers);
        if (id) store.delete(id);
        return new ApiReply(200, { data: { signed_out: true } }, { 'Set-Cookie': cookie('', 0) });
      },
    }),
    defineApiRoute({
      method: 'GET',
      path: '/auth-token',
      operationId: 'auth-token',
      summary: "The management auth token, for the dashboard's header (reveal and copy).",
      tag: TAG,
      response: { type: 'object', properties: { data: { type: 'object', properties: { auth_token: { type: 'string' } } } } },
      async handle() {
        return { data: { auth_token: options.authToken ?? '' } };
      },
    }),
  ];
}
