// Serves one HttpRoute on a loopback port (what the gateway does when it mounts `/api`), so API
// tests and SDK tests talk real HTTP to it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpRoute } from '../../http/route.js';

export interface RouteServer {
  /** Base URL including the route prefix, e.g. http://127.0.0.1:1234/api */
  url: string;
  origin: string;
  close(): Promise<void>;
}

export async function startRouteServer(route: HttpRoute): Promise<RouteServer> {
  let n = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== route.prefix && !path.startsWith(`${route.prefix}/`)) {
      res.writeHead(404).end();
      return;
    }
    void route.handle(req, res, { requestId: `req-${++n}` });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${route.prefix}`,
    origin,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
