// The gateway: the JSON-RPC endpoint per network (plain keep-alive requests on the fast path,
// fastPath/, everything else through node:http) and, beside it, the management router
// (http/api/createApiApp.ts: `/healthz`, `/readyz`, `/metrics`, `/api/keys` and the other `/api`
// routes), and the same endpoint over WebSocket (websocket/, node:http's `upgrade`). Owns request
// ids, CORS, access logs and graceful shutdown; what a method does is left to the backends.
import { createServer, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { InternalError } from '../rpc/errors.js';
import { createApiApp, type ApiApp } from '../http/api/createApiApp.js';
import { sendJson } from '../http/sendJson.js';
import { createPathRedactor } from '../log/createLogger.js';
import { systemClock } from './clock.js';
import { createCors } from './cors.js';
import { handleClientError } from './clientErrors.js';
import { DEFAULT_LIMITS, type GatewayOptions } from './gatewayOptions.js';
import { createKeysRoutes } from './api/keysRoute.js';
import { createNetworksRoutes } from './api/networksRoute.js';
import { createTraceRoutes } from './api/traceRoute.js';
import { createDashboardServer } from '../dashboard/createDashboardServer.js';
import { createKeyCache, type KeyCache } from './keys/keyCache.js';
import { createGatewayMetrics, type GatewayMetrics } from './ops/gatewayMetrics.js';
import type { ReadinessCheck } from './ops/health.js';
import { createOpsRoutes } from './ops/opsRoutes.js';
import { createCostTable } from './policy/computeUnits.js';
import { createTierPolicy } from './policy/tiers.js';
import { createTokenBucketLimiter } from './policy/tokenBucket.js';
import { createNetworkRouter, type NetworkRouter } from './router/networkRouter.js';
import { networkKey } from '../config/networkNames.js';
import { createRpcEndpoint } from './rpcEndpoint.js';
import { createUsageRecorder } from './usage/usageRecorder.js';
import { nodeExchange } from './rpcExchange.js';
import { createFastFront, type FastExchange } from './fastPath/createFastFront.js';
import { createWsEndpoint } from './websocket/wsEndpoint.js';
import { serveAsPlainRequest } from './websocket/plainUpgrade.js';
import { createInternalAuthenticator, INTERNAL_TOKEN_HEADER, matchInternalPath, noUsage, unmeteredTiers } from './internalEndpoint.js';

export interface Gateway {
  readonly server: Server;
  readonly metrics: GatewayMetrics;
  readonly keyCache: KeyCache;
  /** The management router (everything but JSON-RPC) with its mounted routes and OpenAPI document. */
  readonly api: ApiApp;
  /** Starts listening; port 0 picks a free port. */
  listen(host?: string, port?: number): Promise<{ host: string; port: number; url: string }>;
  /**
   * A second listening socket served like the first, outside node:cluster's shared handles
   * (`exclusive`): the internal endpoint's address for the other processes of `--processes N`.
   */
  listenInternal(host: string, port: number): Promise<{ host: string; port: number; url: string }>;
  /** Stops accepting, lets in-flight requests finish (up to drainTimeoutMs), flushes usage. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type NetworkTarget = { network: NetworkRouter; apiKey: string | undefined };
type RpcTarget = NetworkTarget | { unknownNetwork: string };

/**
 * `/v2/<key>` or `/<network>/v2/<key>`, with an optional trailing slash; anything else is not the
 * endpoint. `networks` holds every network by networkKey (and may hold other spellings): a segment
 * is looked up as written first, then normalised (case, `_` for `-`), so a usual spelling costs one
 * map lookup. Parsed with indexOf rather than split: this runs on every request.
 */
export function matchRpcPath(path: string, networks: ReadonlyMap<string, NetworkRouter>, first: NetworkRouter): RpcTarget | undefined {
  let network: NetworkRouter | undefined = first;
  let rest: string;
  if (path.startsWith('/v2/') || path === '/v2') rest = path.slice(4);
  else {
    const slash = path.indexOf('/', 1);
    if (slash === -1 || !path.startsWith('/v2', slash) || (path.length > slash + 3 && path[slash + 3] !== '/')) return undefined;
    const name = path.slice(1, slash);
    network = networks.get(name) ?? networks.get(networkKey(name));
    if (!network) return { unknownNetwork: name };
    rest = path.slice(slash + 4);
  }
  const end = rest.indexOf('/');
  if (end !== -1 && end !== rest.length - 1) return undefined;
  const apiKey = end === -1 ? rest : rest.slice(0, end);
  return { network, apiKey: apiKey || undefined };
}

/** Request ids: a random per-process prefix and a counter (cheaper than a UUID, still unique). */
function createRequestIds(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let n = 0;
  return () => `${prefix}-${(++n).toString(36)}`;
}

export function createGateway(options: GatewayOptions): Gateway {
  if (options.networks.length === 0) throw new TypeError('the gateway needs at least one network');
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  const repo = options.store.keys;
  const routers = options.networks.map(createNetworkRouter);
  const networks = new Map(routers.map((r) => [r.key, r]));
  if (networks.size !== routers.length) throw new TypeError('network names must be unique (compared case-insensitively, with - for _)');
  const servedNames = routers.map((r) => r.name).join(', ');
  // The configured spelling too, so `/ETH_MAINNET/v2/…` is found without normalising.
  const pathLookup = new Map([...networks, ...routers.map((r): [string, NetworkRouter] => [r.name, r])]);
  const defaultNetwork = routers[0]!;
  const metrics = createGatewayMetrics();
  const keyCache = createKeyCache({ repo, clock, ...options.keyCache });
  const usage = createUsageRecorder({ repo, clock, logger, flushIntervalMs: options.usageFlushIntervalMs });
  const cors = createCors(options.cors);
  // The management API takes the service token in a header: a browser on another site must not
  // be told it may send one, unless the operator allows that site.
  const apiCors = createCors({ origins: [], ...options.apiCors });
  const tiers = createTierPolicy(options.tiers);
  const limiter = options.rateLimiter ?? createTokenBucketLimiter({ clock });
  const rpc = createRpcEndpoint({
    keyCache,
    tiers,
    costs: createCostTable(options.computeUnits),
    limiter,
    usage,
    metrics,
    logger,
    maxBodyBytes: limits.maxBodyBytes,
    maxBatchSize: limits.maxBatchSize,
    maxResponseBytes: limits.maxResponseBytes,
  });
  // Other Tracehook processes reach this process's embedded chain here (internalEndpoint.ts):
  // the service token instead of a key, and no compute units (the gateway in front charged them).
  const internal = options.internal;
  const internalRpc =
    internal &&
    createRpcEndpoint({
      keyCache,
      tiers: unmeteredTiers(),
      costs: createCostTable(options.computeUnits),
      limiter,
      usage: noUsage,
      metrics,
      logger,
      maxBodyBytes: limits.maxBodyBytes,
      maxBatchSize: limits.maxBatchSize,
      maxResponseBytes: limits.maxResponseBytes,
      authenticate: createInternalAuthenticator(internal.token),
    });
  const internalNetwork = internal && networks.get(networkKey(internal.network));
  if (internal && !internalNetwork) throw new TypeError(`the internal endpoint's network ${internal.network} is not served`);
  const readiness: ReadinessCheck[] = [
    { name: 'store', check: async () => (await repo.ping(), true) },
    ...routers.map((r) => ({ name: `network:${r.name}`, check: () => r.isReady() })),
    ...(options.readinessChecks ?? []),
  ];
  let closing = false;
  const dashboard = options.dashboard && createDashboardServer({ ...options.dashboard, authToken: options.authToken, clock });
  const dashboardRoutes = dashboard ? [...dashboard.routes, ...createNetworksRoutes({ networks: routers }), ...createTraceRoutes({ networks: routers })] : [];
  const api = createApiApp({
    mounts: [
      { prefix: '/api', routes: [...createKeysRoutes({ repo, keyCache, usage, clock }), ...(options.apiRoutes ?? []), ...dashboardRoutes] },
      { prefix: '', routes: createOpsRoutes({ readiness, readyTimeoutMs: limits.readyTimeoutMs, closing: () => closing, registry: metrics.registry, metricsRequireToken: !!options.metricsRequireToken, details: options.readinessDetails }) },
    ],
    authToken: options.authToken,
    sessions: dashboard?.sessions,
    clock,
    version: options.apiVersion,
    logger,
  });
  // Paths in logs keep only route words: network names and the words of the management routes.
  // Network segments are kept in any spelling that reaches the network (`/ETH-Mainnet/v2/***`).
  const redactPath = createPathRedactor(api.pathWords, (segment) => networks.has(networkKey(segment)));
  const accessLevel = options.accessLogLevel ?? 'debug';
  const nextRequestId = createRequestIds();
  let inFlight = 0;

  /** Serves everything but the JSON-RPC endpoint; returns the metrics route label. */
  const serveOther = async (req: IncomingMessage, res: ServerResponse, path: string, requestId: string): Promise<string> => {
    if (api.owns(path)) return api.serve(req, res, requestId);
    if (dashboard?.owns(path)) return dashboard.serve(req, res, requestId);
    sendJson(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32601, message: `Not found: ${path.slice(0, 100)}. JSON-RPC is served at POST /v2/<API_KEY>` } }, { 'X-Request-Id': requestId, 'Cache-Control': 'no-store' });
    return 'not_found';
  };

  /** Bookkeeping every request ends with: in-flight count, HTTP metrics, access log. */
  const finished = (started: number, requestId: string, httpMethod: string | undefined, url: string, route: string, status: number, methods: string) => {
    inFlight--;
    metrics.httpResponse(route, status);
    if (accessLevel !== 'silent' && logger.isLevelEnabled(accessLevel)) {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      logger[accessLevel]({ reqId: requestId, method: httpMethod, path: redactPath(url), status, ms, rpc: methods || undefined }, 'request');
    }
  };

  const rpcHeaders = (requestId: string, origin: string | undefined) => ['X-Request-Id', requestId, ...cors.headersFor(origin)];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : nextRequestId();
    inFlight++;
    let route = 'rpc';
    let methods = '';
    const url = req.url ?? '/';
    try {
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const target = matchRpcPath(path, pathLookup, defaultNetwork);
      if (req.method === 'OPTIONS') {
        route = 'preflight';
        res.writeHead(204, { ...(target ? cors : apiCors).preflightHeaders(req), 'X-Request-Id': requestId });
        res.end();
        return;
      }
      if (internal && internalRpc && matchInternalPath(path, internal.network)) {
        route = 'internal';
        const token = req.headers[INTERNAL_TOKEN_HEADER.toLowerCase()];
        const request = { requestId, network: internalNetwork!, apiKey: typeof token === 'string' ? token : undefined, headers: ['X-Request-Id', requestId] };
        methods = (await internalRpc(nodeExchange(req, res), request)).methods;
      } else if (target && 'network' in target) {
        const request = { requestId, network: target.network, apiKey: target.apiKey, headers: rpcHeaders(requestId, req.headers.origin) };
        methods = (await rpc(nodeExchange(req, res), request)).methods;
      } else if (target) {
        const message = `Unknown network ${target.unknownNetwork.slice(0, 64)}; served: ${servedNames}`;
        sendJson(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32601, message } }, { 'X-Request-Id': requestId });
      } else {
        const allowed = apiCors.headersFor(req.headers.origin);
        for (let i = 0; i < allowed.length; i += 2) res.setHeader(allowed[i]!, allowed[i + 1]!);
        route = await serveOther(req, res, path, requestId);
      }
    } catch (error) {
      logger.error({ reqId: requestId, path: redactPath(url), err: error }, 'unhandled error while serving a request');
      if (!res.headersSent) sendJson(res, 500, { jsonrpc: '2.0', id: null, error: new InternalError(requestId).toJSON() }, { 'X-Request-Id': requestId });
      else res.destroy();
    } finally {
      finished(started, requestId, req.method, url, route, res.headersSent ? res.statusCode : 0, methods);
      if (closing) server.closeIdleConnections();
    }
  };

  /** The JSON-RPC endpoint for requests the fast path parsed (see fastPath/createFastFront.ts). */
  const handleFast = async (ex: FastExchange<NetworkTarget>) => {
    const started = performance.now();
    const incomingId = ex.head.requestId;
    const requestId = incomingId !== undefined && REQUEST_ID.test(incomingId) ? incomingId : nextRequestId();
    inFlight++;
    metrics.fastPathRequest();
    let methods = '';
    try {
      const request = { requestId, network: ex.route.network, apiKey: ex.route.apiKey, headers: rpcHeaders(requestId, ex.origin) };
      methods = (await rpc(ex, request)).methods;
    } catch (error) {
      logger.error({ reqId: requestId, path: redactPath(ex.head.target), err: error }, 'unhandled error while serving a request');
      const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: new InternalError(requestId).toJSON() });
      if (!ex.settled) ex.respond(500, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), 'X-Request-Id', requestId], body);
      else ex.destroy();
    } finally {
      finished(started, requestId, 'POST', ex.head.target, 'rpc', ex.status, methods);
    }
  };

  const checkIntervalMs = Math.max(100, Math.min(1000, limits.headersTimeoutMs / 2, limits.requestTimeoutMs / 2));
  const server = createServer({
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    // Node checks header/request deadlines on this interval; the default (30 s) is too coarse.
    connectionsCheckingInterval: checkIntervalMs,
  });
  server.on('request', (req, res) => void handle(req, res));
  server.on('clientError', handleClientError);
  // WebSocket upgrades reach node:http (the fast path hands any request with Upgrade over).
  const websocket = createWsEndpoint({
    rpc,
    keyCache,
    match: (path) => matchRpcPath(path, pathLookup, defaultNetwork),
    servedNames,
    limits: { maxMessageBytes: limits.maxBodyBytes, ...options.websocket },
    billing: { tiers, limiter, usage, metrics },
    nextRequestId,
    logger,
    plainRequest: (req, socket, head) => serveAsPlainRequest(server, req, socket as Socket, head, limits.requestTimeoutMs),
  });
  server.on('upgrade', websocket.handleUpgrade);
  const front =
    options.fastPath === false
      ? undefined
      : createFastFront<NetworkTarget>({
          httpServer: server,
          route(path) {
            const target = matchRpcPath(path, pathLookup, defaultNetwork);
            return target && 'network' in target ? target : undefined;
          },
          handle: handleFast,
          maxBodyBytes: limits.maxBodyBytes,
          maxHeadBytes: maxHeaderSize,
          headersTimeoutMs: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
          requestTimeoutMs: limits.requestTimeoutMs,
          keepAliveTimeoutMs: limits.keepAliveTimeoutMs,
          checkIntervalMs,
          maxConnections: limits.maxConnections,
          onHandOff: () => metrics.handedOff(),
        });
  // The socket that accepts connections: the fast path's, which hands node:http what it does not serve.
  const listener = front?.server ?? server;
  // node:http tracks connections (header and request deadlines, closeIdleConnections) from its
  // 'listening' event on; it never listens itself behind the fast path, so it is told here.
  if (front) server.emit('listening');
  if (!front && limits.maxConnections !== undefined) server.maxConnections = limits.maxConnections;

  let internalListener: NetServer | undefined;
  let closed: Promise<void> | undefined;
  return {
    server,
    metrics,
    keyCache,
    api,
    listen(host = '127.0.0.1', port = 0) {
      return new Promise((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(port, host, () => {
          listener.off('error', reject);
          const address = listener.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve({ host: address.address, port: address.port, url: `http://${shownHost}:${address.port}` });
        });
      });
    },
    listenInternal(host, port) {
      // Its connections go to node:http, which serves /internal/<network> (and any other path) as usual.
      const netServer = (internalListener = createNetServer((socket) => server.emit('connection', socket)));
      return new Promise((resolve, reject) => {
        netServer.once('error', reject);
        netServer.listen({ host, port, exclusive: true }, () => {
          netServer.off('error', reject);
          const address = netServer.address() as AddressInfo;
          resolve({ host: address.address, port: address.port, url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` });
        });
      });
    },
    close() {
      closed ??= (async () => {
        closing = true;
        internalListener?.close();
        // Upgraded sockets are node:http's no more: the endpoint closes them (1001), the listener waits for them.
        void websocket.close();
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => {
            front?.destroyAll();
            server.closeAllConnections();
          }, limits.drainTimeoutMs);
          // Resolves once every accepted connection (handed to node:http or not) has closed.
          listener.close(() => {
            clearTimeout(force);
            resolve();
          });
          front?.closeIdle();
          // Behind the fast path this only stops node:http's deadline checks (it never listened).
          if (front) server.close(() => undefined);
          server.closeIdleConnections();
          if (!listener.listening && inFlight === 0) {
            front?.destroyAll();
            server.closeAllConnections();
          }
        });
        await usage.close();
      })();
      return closed;
    },
  };
}
