// The JSON-RPC endpoint over WebSocket: `ws://…/v2/<API_KEY>` and `ws://…/<network>/v2/<API_KEY>`
// (the hosted provider's `wss://…/v2/<key>` shape), upgraded from node:http's `upgrade` event with
// `ws` in noServer mode. The key is checked before the upgrade (401/403 answered as HTTP), then
// every message goes through the same endpoint as HTTP (wsConnection.ts), and its notifications
// are billed by their bytes (notificationMeter.ts). Open connections are bounded per key by tier
// (a 429 at the upgrade past it). A network none of whose backends serves eth_subscribe (a bare
// pass-through; the service's upstream networks serve it, main/upstreamSubscriptions.ts) answers
// subscriptions with a clear -32601.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { Backend } from '../../backends/backend.js';
import { LimitExceededError, MethodNotFoundError, RpcError, ServiceUnavailableError } from '../../rpc/errors.js';
import type { ApiKeyRecord } from '../../store/types.js';
import type { KeyCache } from '../keys/keyCache.js';
import { authenticate } from '../middleware/authenticate.js';
import type { NetworkRouter } from '../router/networkRouter.js';
import { type NotificationBillingDeps, NotificationMeter } from './notificationMeter.js';
import { isWebSocketUpgrade } from './plainUpgrade.js';
import { type RpcHandler, WsConnection } from './wsConnection.js';
import { DEFAULT_WEBSOCKET_LIMITS, type WebSocketLimits } from './wsLimits.js';

type Target = { network: NetworkRouter; apiKey: string | undefined } | { unknownNetwork: string } | undefined;

export interface WsEndpointDeps {
  rpc: RpcHandler;
  keyCache: KeyCache;
  /** The gateway's path matcher (app.ts `matchRpcPath` over its networks). */
  match: (path: string) => Target;
  servedNames: string;
  limits: Partial<WebSocketLimits> & { maxMessageBytes: number };
  /** The gateway's tiers, bucket and usage, to bill notifications; absent, they are free. */
  billing?: NotificationBillingDeps;
  nextRequestId: () => string;
  logger: Logger;
  /** Serves an Upgrade request that is not a WebSocket as the plain request it also is (plainUpgrade.ts). */
  plainRequest: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
}

export interface WsEndpoint {
  /** node:http's `upgrade` listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open connections. */
  connections(): number;
  /** Closes every connection (1001) and resolves once they are gone. */
  close(): Promise<void>;
}

const SUBSCRIPTION_METHODS = new Set(['eth_subscribe', 'eth_unsubscribe']);

/** Answers eth_subscribe/eth_unsubscribe on a network that cannot feed subscriptions yet. */
function noSubscriptions(network: NetworkRouter): Backend {
  return {
    name: 'websocket',
    handles: (method) => SUBSCRIPTION_METHODS.has(method),
    call: (method) =>
      Promise.reject(new MethodNotFoundError(method, { message: `${method}: subscriptions are not served on network ${network.name} (a pass-through with no subscription feed); poll with eth_newFilter/eth_getFilterChanges` })),
  };
}

/** The network as a WebSocket sees it: its own subscriptions, or the refusal above. */
function withSubscriptions(network: NetworkRouter): NetworkRouter {
  if (network.servesLocally('eth_subscribe')) return network;
  const refusal = noSubscriptions(network);
  return {
    name: network.name,
    key: network.key,
    resolve: (method) => (SUBSCRIPTION_METHODS.has(method) ? refusal : network.resolve(method)),
    servesLocally: (method) => SUBSCRIPTION_METHODS.has(method) || network.servesLocally(method),
    isReady: () => network.isReady(),
  };
}

/** Writes an HTTP answer on a socket that is not upgraded, and closes it. */
function refuseUpgrade(socket: Duplex, status: number, reason: string, error: RpcError): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: error.toJSON() });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' };

export function createWsEndpoint(deps: WsEndpointDeps): WsEndpoint {
  const limits: WebSocketLimits = {
    ...DEFAULT_WEBSOCKET_LIMITS,
    ...deps.limits,
    maxConnectionsPerKey: { ...DEFAULT_WEBSOCKET_LIMITS.maxConnectionsPerKey, ...deps.limits.maxConnectionsPerKey },
  };
  const wss = new WebSocketServer({ noServer: true, maxPayload: deps.limits.maxMessageBytes, perMessageDeflate: false, clientTracking: false });
  const open = new Set<WsConnection>();
  const keyCounts = new Map<string, number>();
  // Open (or opening) connections per key id.
  const keyConnections = new Map<string, number>();
  const views = new WeakMap<NetworkRouter, NetworkRouter>();
  let closing = false;
  let allClosed: (() => void) | undefined;

  const viewOf = (network: NetworkRouter) => {
    let view = views.get(network);
    if (!view) views.set(network, (view = withSubscriptions(network)));
    return view;
  };

  /** Counts a connection of `key` from now until its socket closes; the refusal when the key holds its cap. */
  const reserveConnection = (socket: Duplex, key: ApiKeyRecord): LimitExceededError | undefined => {
    const cap = limits.maxConnectionsPerKey[key.tier] ?? Infinity;
    const held = keyConnections.get(key.id) ?? 0;
    if (held >= cap) {
      return new LimitExceededError(`too many WebSocket connections for this API key: it holds ${held} (limit ${cap} on the ${key.tier} tier); close some or share one connection among subscriptions`);
    }
    keyConnections.set(key.id, held + 1);
    socket.once('close', () => {
      const left = (keyConnections.get(key.id) ?? 1) - 1;
      if (left > 0) keyConnections.set(key.id, left);
      else keyConnections.delete(key.id);
    });
    return undefined;
  };

  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer, network: NetworkRouter, apiKey: string, key: ApiKeyRecord) => {
    const overCap = reserveConnection(socket, key);
    if (overCap) return refuseUpgrade(socket, 429, STATUS_TEXT[429]!, overCap);
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (closing) return ws.close(1001, 'server shutting down');
      const connection: WsConnection = new WsConnection({
        ws,
        rpc: deps.rpc,
        network: viewOf(network),
        apiKey,
        keyId: key.id,
        origin: req.headers.origin,
        limits,
        keyCounts,
        meter: deps.billing && new NotificationMeter(deps.billing, key, limits.notificationCuPerByte),
        nextRequestId: deps.nextRequestId,
        keyStillValid: async () => {
          try {
            await authenticate(deps.keyCache, apiKey, req.headers.origin);
            return true;
          } catch (error) {
            return !(error instanceof RpcError);
          }
        },
        logger: deps.logger,
        onClosed: () => {
          open.delete(connection);
          if (open.size === 0) allClosed?.();
        },
      });
      open.add(connection);
    });
  };

  return {
    handleUpgrade(req, socket, head) {
      if (!isWebSocketUpgrade(req)) return deps.plainRequest(req, socket, head);
      socket.on('error', () => undefined);
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const target = deps.match(q === -1 ? url : url.slice(0, q));
      if (closing) return refuseUpgrade(socket, 503, STATUS_TEXT[503]!, new ServiceUnavailableError('Service shutting down', 5));
      if (!target) return refuseUpgrade(socket, 404, STATUS_TEXT[404]!, new MethodNotFoundError('', { message: `Not found: ${url.slice(0, 100)}. WebSocket JSON-RPC is served at /v2/<API_KEY>` }));
      if ('unknownNetwork' in target) {
        return refuseUpgrade(socket, 404, STATUS_TEXT[404]!, new MethodNotFoundError('', { message: `Unknown network ${target.unknownNetwork.slice(0, 64)}; served: ${deps.servedNames}` }));
      }
      const origin = req.headers.origin;
      const refused = (error: unknown) => {
        // Not an RpcError: the key store cannot be reached.
        const rpcError = error instanceof RpcError ? error : new ServiceUnavailableError('Service temporarily unavailable: API keys cannot be checked', 5);
        if (!(error instanceof RpcError)) deps.logger.error({ err: error }, 'API key lookup failed (websocket upgrade)');
        refuseUpgrade(socket, rpcError.httpStatus, STATUS_TEXT[rpcError.httpStatus] ?? 'Error', rpcError);
      };
      try {
        const found = authenticate(deps.keyCache, target.apiKey, origin);
        if (found instanceof Promise) found.then((key) => accept(req, socket, head, target.network, target.apiKey!, key), refused);
        else accept(req, socket, head, target.network, target.apiKey!, found);
      } catch (error) {
        refused(error);
      }
    },
    connections: () => open.size,
    close() {
      closing = true;
      if (open.size === 0) return Promise.resolve();
      const done = new Promise<void>((resolve) => (allClosed = resolve));
      for (const connection of open) connection.close(1001, 'server shutting down');
      return done;
    },
  };
}
