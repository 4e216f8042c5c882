// The dashboard as the gateway mounts it: the static page (serveDashboard.ts), the in-memory
// session store, the session check the management kit applies when no token header is sent, and
// the sign-in routes under `/api`.
import type { ApiRoute } from '../http/api/apiRoute.js';
import type { SessionCheck } from '../http/api/createApiApp.js';
import { createDashboard, type Dashboard } from './serveDashboard.js';
import { createSessionCheck } from './sessionCheck.js';
import { createSessionRoutes } from './sessionRoutes.js';
import { createSessionStore } from './sessionStore.js';

export interface DashboardOptions {
  /** The Vite build of `web/` (dist/web). */
  dir: string;
  /** Session lifetime from sign-in. Default 8 hours. */
  sessionTtlMs?: number;
}

export interface DashboardServer extends Dashboard {
  readonly sessions: SessionCheck;
  readonly routes: ApiRoute[];
}

export function createDashboardServer(options: DashboardOptions & { authToken: string | undefined; clock?: { now(): number } }): DashboardServer {
  const store = createSessionStore({ ttlMs: options.sessionTtlMs, clock: options.clock });
  const check = createSessionCheck(store);
  return { ...createDashboard({ dir: options.dir }), sessions: check, routes: createSessionRoutes({ store, check, authToken: options.authToken }) };
}
