// One WebSocket connection of the JSON-RPC endpoint: each message becomes an RpcExchange answered
// by the same endpoint as HTTP (key, tier, compute units, batches), its subscriptions (bounded per
// connection and, through `keyCounts`, per API key), and the send side: a notification waits until
// its eth_subscribe's answer is out, and a client that does not read fills a bounded buffer and is
// then closed with 1008 and a reason. Each notification is billed by its bytes
// (notificationMeter.ts); one the key's budget cannot pay is not sent, and the connection is closed
// with 1008 and a reason naming the budget (README: "WebSocket").
import { randomBytes } from 'node:crypto';
import type { WebSocket, RawData } from 'ws';
import type { Logger } from 'pino';
import type { ConnectionSubscription, RpcConnection } from '../../backends/embedded/methodTable.js';
import { LimitExceededError, ServerError } from '../../rpc/errors.js';
import type { RpcExchange } from '../rpcExchange.js';
import type { RpcRequest } from '../rpcEndpoint.js';
import type { NetworkRouter } from '../router/networkRouter.js';
import type { NotificationMeter } from './notificationMeter.js';
import type { WebSocketLimits } from './wsLimits.js';

/** The endpoint's handler, as createRpcEndpoint returns it. */
export type RpcHandler = (ex: RpcExchange, request: RpcRequest) => Promise<{ status: number; methods: string }>;

export interface WsConnectionDeps {
  ws: WebSocket;
  rpc: RpcHandler;
  network: NetworkRouter;
  apiKey: string;
  /** The key's id: subscriptions are counted per key across connections. */
  keyId: string;
  origin: string | undefined;
  limits: WebSocketLimits;
  /** Subscriptions held per key id, shared by every connection of the endpoint. */
  keyCounts: Map<string, number>;
  /** Bills notifications; absent, they are free. */
  meter?: NotificationMeter;
  nextRequestId: () => string;
  /** Whether the connection's key (and origin) still passes the check made at the upgrade. */
  keyStillValid: () => Promise<boolean>;
  logger: Logger;
  onClosed: () => void;
}

interface Subscription extends ConnectionSubscription {
  cancel: () => void;
  /** Notifications held until eth_subscribe's answer is sent (undefined once it is). */
  held: string[] | undefined;
}

export class WsConnection {
  readonly #deps: WsConnectionDeps;
  readonly #subs = new Map<string, Subscription>();
  readonly #queue: string[] = [];
  #queuedBytes = 0;
  #inFlight = 0;
  #paused = false;
  #closing = false;
  #closed = false;
  readonly #closeListeners: (() => void)[] = [];

  constructor(deps: WsConnectionDeps) {
    this.#deps = deps;
    const { ws } = deps;
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', () => this.#onClose());
    // Malformed frames, oversized messages: ws closes the connection itself (1002, 1009…).
    ws.on('error', (err) => deps.logger.debug({ err: { message: err.message } }, 'websocket error'));
  }

  get subscriptionCount(): number {
    return this.#subs.size;
  }

  /** Closes for cause (or shutdown); the socket is cut if the client does not answer within the grace. */
  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closing = true;
    this.#deps.ws.close(code, reason);
    setTimeout(() => this.#deps.ws.terminate(), this.#deps.limits.closeGraceMs).unref();
  }

  #onMessage(data: RawData, _isBinary: boolean): void {
    if (this.#closing) return;
    const body = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    this.#inFlight++;
    if (this.#inFlight >= this.#deps.limits.maxInFlightMessages && !this.#paused) {
      this.#paused = true;
      this.#deps.ws.pause();
    }
    const requestId = this.#deps.nextRequestId();
    const request: RpcRequest = { requestId, network: this.#deps.network, apiKey: this.#deps.apiKey, headers: [] };
    void this.#deps
      .rpc(this.#exchange(body), request)
      .catch((err: unknown) => this.#deps.logger.error({ reqId: requestId, err }, 'unhandled error while serving a websocket message'))
      .finally(() => {
        this.#inFlight--;
        if (this.#paused && this.#inFlight <= this.#deps.limits.maxInFlightMessages / 2 && !this.#closing) {
          this.#paused = false;
          this.#deps.ws.resume();
        }
      });
  }

  /** One message as the endpoint's exchange; subscriptions it creates are released with its answer. */
  #exchange(body: Buffer): RpcExchange {
    let settled = false;
    const created: Subscription[] = [];
    const release = () => {
      for (const sub of created) {
        const held = sub.held;
        sub.held = undefined;
        if (!held) continue;
        for (const text of held) this.#queuedBytes -= Buffer.byteLength(text);
        if (this.#subs.get(sub.id) === sub) for (const text of held) this.#send(text);
      }
    };
    const connection: RpcConnection = {
      subscribe: (cancel) => {
        const sub = this.#addSubscription(cancel);
        created.push(sub);
        return sub;
      },
      unsubscribe: (id) => this.#removeSubscription(id),
    };
    return {
      httpMethod: 'POST',
      contentType: undefined,
      origin: this.#deps.origin,
      body: () => Promise.resolve(body),
      get settled() {
        return settled;
      },
      respond: (status, _headers, text) => {
        if (settled) return;
        settled = true;
        if (text) this.#send(text);
        release();
        // A 401/403 may be the key itself (revoked while connected) or only a method above its
        // tier: when the key no longer passes, the connection ends after the answer.
        if (status === 401 || status === 403) void this.#deps.keyStillValid().then((valid) => valid || this.close(1008, 'API key refused'));
      },
      destroy: () => {
        settled = true;
        release();
      },
      onAbort: (listener) => {
        if (this.#closed) listener();
        else this.#closeListeners.push(listener);
      },
      connection,
    };
  }

  #addSubscription(cancel: () => void): Subscription {
    const { limits, keyCounts, keyId } = this.#deps;
    // A message still running when the client left must not leave a subscription nobody ends.
    if (this.#closing) throw new ServerError('the connection is closing');
    if (this.#subs.size >= limits.maxSubscriptionsPerConnection) {
      throw new LimitExceededError(`too many subscriptions on this connection (limit ${limits.maxSubscriptionsPerConnection}); end some with eth_unsubscribe`);
    }
    const held = keyCounts.get(keyId) ?? 0;
    if (held >= limits.maxSubscriptionsPerKey) {
      throw new LimitExceededError(`too many subscriptions for this API key (limit ${limits.maxSubscriptionsPerKey} over all its connections); end some with eth_unsubscribe`);
    }
    keyCounts.set(keyId, held + 1);
    const id = `0x${randomBytes(16).toString('hex')}`;
    const sub: Subscription = {
      id,
      cancel,
      held: [],
      notify: (result) => {
        if (this.#closing || this.#subs.get(id) !== sub) return;
        const text = JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result } });
        const bytes = Buffer.byteLength(text);
        const verdict = this.#deps.meter?.charge(bytes);
        if (verdict instanceof Promise) {
          // A limiter shared over the network answers later: this one goes out, the next are stopped.
          void verdict.then(
            (reason) => reason && this.#overBudget(reason),
            (err: unknown) => this.#deps.logger.warn({ err }, 'websocket notification billing failed'),
          );
        } else if (verdict) {
          this.#overBudget(verdict);
          return;
        }
        if (sub.held) {
          if (!this.#reserve(bytes)) return;
          this.#queuedBytes += bytes;
          sub.held.push(text);
        } else this.#send(text);
      },
    };
    this.#subs.set(id, sub);
    return sub;
  }

  #removeSubscription(id: string): boolean {
    const sub = this.#subs.get(id.toLowerCase());
    if (!sub) return false;
    this.#subs.delete(sub.id);
    const { keyCounts, keyId } = this.#deps;
    const left = (keyCounts.get(keyId) ?? 1) - 1;
    if (left > 0) keyCounts.set(keyId, left);
    else keyCounts.delete(keyId);
    sub.cancel();
    return true;
  }

  /** Counts `bytes` against the buffer; false (and the connection closed) when they do not fit. */
  #reserve(bytes: number): boolean {
    if (this.#queuedBytes + bytes <= this.#deps.limits.maxBufferedBytes) return true;
    this.#overflow();
    return false;
  }

  #send(text: string): void {
    if (this.#closing) return;
    const { ws, limits } = this.#deps;
    if (this.#queue.length === 0 && ws.bufferedAmount < limits.socketHighWaterBytes) {
      ws.send(text, this.#drain);
      return;
    }
    const bytes = Buffer.byteLength(text);
    if (!this.#reserve(bytes)) return;
    this.#queuedBytes += bytes;
    this.#queue.push(text);
  }

  /** Called as each write reaches the socket: moves waiting messages on while the socket takes them. */
  readonly #drain = (): void => {
    const { ws, limits } = this.#deps;
    while (!this.#closing && this.#queue.length > 0 && ws.bufferedAmount < limits.socketHighWaterBytes) {
      const text = this.#queue.shift()!;
      this.#queuedBytes -= Buffer.byteLength(text);
      ws.send(text, this.#drain);
    }
  };

  #overflow(): void {
    const max = this.#deps.limits.maxBufferedBytes;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#deps.logger.info({ maxBufferedBytes: max }, 'websocket client does not read: connection closed');
    this.close(1008, `send buffer over ${max} bytes: client not reading`);
    this.#endSubscriptions();
  }

  /** A notification the key's compute-unit budget cannot pay: no more are sent, the client is told why. */
  #overBudget(reason: string): void {
    if (this.#closing) return;
    this.#deps.logger.info({ keyId: this.#deps.keyId, reason }, 'websocket notifications over the key\'s budget: connection closed');
    this.close(1008, reason);
    this.#endSubscriptions();
  }

  #endSubscriptions(): void {
    for (const id of [...this.#subs.keys()]) this.#removeSubscription(id);
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = this.#closing = true;
    this.#queue.length = 0;
    this.#endSubscriptions();
    for (const listener of this.#closeListeners.splice(0)) listener();
    this.#deps.onClosed();
  }
}
