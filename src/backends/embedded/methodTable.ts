// The table of JSON-RPC methods a backend serves: one runtime schema and one handler per wire name.
// Namespaces declare `{ schema, handlers }` pairs; a missing handler fails to compile.
import type { MethodSpec, ParamsOf } from '../../rpc/schema/defineMethod.js';
import { parseParams } from '../../rpc/schema/defineMethod.js';
import { MethodNotFoundError } from '../../rpc/errors.js';

/** Per-request facts a handler may use. */
export interface RpcContext {
  /** Request id, also in logs and the `X-Request-Id` header. */
  requestId: string;
  /** Aborted when the client disconnects or the request's deadline passes. */
  signal: AbortSignal;
  /**
   * The same news as `signal` without making one (the gateway's contexts offer it; the trace pool
   * reads it first): runs `listener` once, returns the function that takes it off, or undefined
   * when the request is cancelled already. See JobScope.onCancel.
   */
  onCancel?(listener: () => void): (() => void) | undefined;
  /**
   * Who asked: the API key's id (the gateway fills it). The trace pool queues jobs per client key
   * and serves keys in turn; calls without one share a single queue.
   */
  clientKey?: string;
  /** The API key's class (its tier): the trace queue's depth in /metrics is counted per class. */
  keyClass?: string;
  /**
   * Told by a caching backend, once per cacheable call, whether the cache answered it (the
   * gateway's `X-Cache` header). Absent where nobody asks.
   */
  noteCache?(hit: boolean): void;
  /**
   * The client's connection when it can take notifications (a WebSocket); absent over HTTP, where
   * eth_subscribe has nowhere to send them.
   */
  connection?: RpcConnection;
  /**
   * Told by an upstream network's trace path choice (backends/upstream/tracePaths.ts), once per
   * answered trace call, where the answer came from (the gateway's `X-Trace-Source` header).
   */
  noteTraceSource?(source: 'native' | 'translated' | 'executed'): void;
}

/** One subscription of a connection, as eth_subscribe handlers see it. */
export interface ConnectionSubscription {
  readonly id: string;
  /** Sends `{method: 'eth_subscription', params: {subscription: id, result}}` (after eth_subscribe's answer). */
  notify(result: unknown): void;
}

/** What a connection that takes notifications offers handlers (the gateway's WebSocket endpoint). */
export interface RpcConnection {
  /**
   * Registers a subscription whose `cancel` runs on eth_unsubscribe or when the connection closes.
   * Throws LimitExceededError past the connection's or the API key's bound.
   */
  subscribe(cancel: () => void): ConnectionSubscription;
  /** Ends one of this connection's subscriptions; false when it has none by that id. */
  unsubscribe(id: string): boolean;
}

export type MethodHandler<M extends MethodSpec> = (params: ParamsOf<M>, ctx: RpcContext) => unknown;

/** Handlers for every method of a namespace schema. */
export type HandlersFor<S extends Record<string, MethodSpec>> = { [K in keyof S]: MethodHandler<S[K]> };

export interface MethodEntry {
  spec: MethodSpec;
  handler: (params: never, ctx: RpcContext) => unknown;
  /** Waited for before the handler runs (see {@link MethodGate}). */
  gate?: () => Promise<void> | undefined;
}

/**
 * What a namespace's handlers wait for before they run: the embedded chain answers
 * eth_sendRawTransaction once the transaction has run and is journaled, before its block is sealed
 * and written; every other method waits for the blocks acknowledged so far, so a client reads what
 * it was told was sent (chainReadGate.ts).
 */
export interface MethodGate {
  wait(): Promise<void> | undefined;
  /** Methods that do not wait. */
  exempt: ReadonlySet<string>;
}

export type MethodTable = ReadonlyMap<string, MethodEntry>;

export interface Namespace<S extends Record<string, MethodSpec>> {
  schema: S;
  handlers: HandlersFor<S>;
  gate?: MethodGate;
}

/** Any namespace, whatever its methods: handlers take `never` so every concrete handler fits. */
export interface AnyNamespace {
  schema: Record<string, MethodSpec>;
  handlers: Record<string, (params: never, ctx: RpcContext) => unknown>;
  gate?: MethodGate;
}

/** Builds a method table from namespaces; later namespaces override earlier ones for the same name. */
export function createMethodTable(...namespaces: AnyNamespace[]): MethodTable {
  const table = new Map<string, MethodEntry>();
  for (const ns of namespaces) {
    for (const name of Object.keys(ns.schema)) {
      const gate = ns.gate && !ns.gate.exempt.has(name) ? ns.gate.wait : undefined;
      table.set(name, { spec: ns.schema[name]!, handler: ns.handlers[name] as MethodEntry['handler'], gate });
    }
  }
  return table;
}

/** Typed helper so a namespace literal keeps its schema's method names. */
export function defineNamespace<S extends Record<string, MethodSpec>>(schema: S, handlers: HandlersFor<S>): Namespace<S> {
  return { schema, handlers };
}

/** Validates params and runs the handler; unknown methods throw MethodNotFoundError. */
export async function callMethod(table: MethodTable, method: string, rawParams: unknown, ctx: RpcContext): Promise<unknown> {
  const entry = table.get(method);
  if (!entry) throw new MethodNotFoundError(method);
  const params = parseParams(method, entry.spec, rawParams);
  const wait = entry.gate?.();
  if (wait !== undefined) await wait;
  return await (entry.handler as (p: unknown, c: RpcContext) => unknown)(params, ctx);
}
