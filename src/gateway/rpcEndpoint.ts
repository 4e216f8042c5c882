// The JSON-RPC endpoint `POST [/<network>]/v2/<API_KEY>`: key → body → body-size charge → decode
// → admission (method, tier, cost) → compute-unit quota → backends → billing → encoded answer.
// Every failure becomes a JSON-RPC error body with the HTTP status of the error table (README);
// nothing thrown escapes.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ApiKeyRecord } from '../store/types.js';
import { InvalidRequestError, LimitExceededError, PayloadTooLargeError, RateLimitedError, RpcError, ServiceUnavailableError, toRpcError } from '../rpc/errors.js';
import type { RpcConnection, RpcContext } from '../backends/embedded/methodTable.js';
import type { Backend, CallOutcome } from '../backends/backend.js';
import { BodyTooLargeError } from '../http/readBody.js';
import { inspectBody, parseBody, type DecodedBody, type DecodedItem, type JsonRpcId } from './framing/decodeRequest.js';
import { encodeBatch, encodeError, encodeResult } from './framing/encodeResponse.js';
import { admit, type AdmissionDeps, type AdmittedItem } from './middleware/admission.js';
import { authenticate } from './middleware/authenticate.js';
import type { KeyCache } from './keys/keyCache.js';
import type { NetworkRouter } from './router/networkRouter.js';
import { Bill, type QuotaDeps } from './middleware/quota.js';
import type { HeaderList } from './cors.js';
import type { RpcExchange } from './rpcExchange.js';
import { createResponseBudget, type ResponseBudget } from './responseBudget.js';

export interface RpcEndpointDeps extends AdmissionDeps, QuotaDeps {
  keyCache: KeyCache;
  logger: Logger;
  maxBodyBytes: number;
  maxBatchSize: number;
  /** Largest answer of one batch (JSON text); elements past it answer -32005 and the rest is cancelled. */
  maxResponseBytes: number;
  /**
   * Replaces the API key check: `credential` is the request's `apiKey` (the internal endpoint
   * passes its X-Service-Token there, internalEndpoint.ts). Throws an RpcError to refuse.
   */
  authenticate?: (credential: string | undefined) => ApiKeyRecord;
}

export interface RpcRequest {
  requestId: string;
  network: NetworkRouter;
  /** The key segment of the path, if any. */
  apiKey: string | undefined;
  /** Headers every answer carries (request id, CORS), as a flat name/value list. */
  headers: HeaderList;
}

/** What the endpoint did, for the access log and HTTP metrics. */
export interface RpcOutcome {
  status: number;
  /** Method name, `batch(n)`, or empty when no body was decoded. */
  methods: string;
}

type RunItem = Extract<AdmittedItem, { kind: 'run' }>;

function isJsonContentType(value: string): boolean {
  const semi = value.indexOf(';');
  const type = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || type === 'application/json-rpc';
}

/**
 * The call context. Its AbortSignal (aborted when the client disconnects before the answer) is
 * created only if a handler reads it, which keeps cheap calls cheap; the trace pool listens through
 * `onCancel` instead, which needs no AbortSignal.
 */
class CallContext implements RpcContext {
  #controller: AbortController | undefined;
  /** Listening to the exchange's abort (once per context: the exchange takes one listener). */
  #watching = false;
  /** The client went away, or `abort()` was called. */
  #gone = false;
  #cancelListeners: Set<() => void> | undefined;
  /** Cacheable calls noted by a caching backend, and whether every one of them hit. */
  #cacheNoted = false;
  #cacheAllHit = true;
  /** Sources of the answered trace calls (tracePaths.ts), in the order first seen. */
  #traceSources: ('native' | 'translated' | 'executed')[] | undefined;
  constructor(
    readonly requestId: string,
    private readonly ex: RpcExchange,
    /** The API key's id: the trace pool's fair queue is per key. */
    readonly clientKey: string,
    /** The API key's tier (the trace queue's depth is counted per class in /metrics). */
    readonly keyClass: string,
  ) {}
  get signal(): AbortSignal {
    return this.#ensureController().signal;
  }
  /** The WebSocket connection a message came on, for eth_subscribe (gateway/websocket/). */
  get connection(): RpcConnection | undefined {
    return this.ex.connection;
  }
  noteCache(hit: boolean): void {
    this.#cacheNoted = true;
    if (!hit) this.#cacheAllHit = false;
  }
  /** `X-Cache: HIT|MISS` when a cacheable call was noted (HIT only when all of them hit), else none. */
  cacheHeader(): HeaderList | undefined {
    if (!this.#cacheNoted) return undefined;
    return this.#cacheAllHit ? X_CACHE_HIT : X_CACHE_MISS;
  }
  noteTraceSource(source: 'native' | 'translated' | 'executed'): void {
    this.#traceSources ??= [];
    if (!this.#traceSources.includes(source)) this.#traceSources.push(source);
  }
  /**
   * The answer's extra headers: `X-Cache: HIT|MISS` when a cacheable call was noted (HIT only
   * when all of them hit), `X-Trace-Source: native|translated|executed` when a trace call was
   * answered on an upstream network (a batch's distinct sources as a list).
   */
  answerHeaders(): HeaderList | undefined {
    const cache = this.cacheHeader();
    if (!this.#traceSources) return cache;
    const source: HeaderList = ['X-Trace-Source', this.#traceSources.join(', ')];
    return cache ? [...cache, ...source] : source;
  }
  /** JobScope.onCancel: `listener` runs once when the client goes away or `abort()` is called. */
  onCancel(listener: () => void): (() => void) | undefined {
    this.#watch();
    if (this.#gone) return undefined;
    const listeners = (this.#cancelListeners ??= new Set());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }
  /** Cancels the request's pending calls (the batch's answer is over its limit). */
  abort(): void {
    this.#cancel();
  }
  #watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    this.ex.onAbort(() => this.#cancel());
  }
  #cancel(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#controller?.abort();
    const listeners = this.#cancelListeners;
    if (!listeners) return;
    this.#cancelListeners = undefined;
    for (const listener of listeners) listener();
  }
  #ensureController(): AbortController {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#gone) this.#controller.abort();
      else this.#watch();
    }
    return this.#controller;
  }
}

const X_CACHE_HIT: HeaderList = ['X-Cache', 'HIT'];
const X_CACHE_MISS: HeaderList = ['X-Cache', 'MISS'];
const CLOSE: HeaderList = ['Connection', 'close'];
const ALLOW_POST: HeaderList = ['Allow', 'POST, OPTIONS'];
/** Retry-After of a 503 when the key store cannot be reached. */
export const STORE_DOWN_RETRY_AFTER_SEC = 5;

const retryAfter = (error: { retryAfterSec: number }): HeaderList => ['Retry-After', String(error.retryAfterSec)];

export function createRpcEndpoint(deps: RpcEndpointDeps) {
  const send = (ex: RpcExchange, request: RpcRequest, status: number, body: string, extra?: HeaderList) => {
    if (ex.settled) return;
    const headers = ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)), ...request.headers];
    if (extra) headers.push(...extra);
    ex.respond(status, headers, body);
  };

  const fail = (ex: RpcExchange, request: RpcRequest, error: RpcError, id: JsonRpcId = null, extra?: HeaderList): number => {
    send(ex, request, error.httpStatus, encodeError(id, error), extra);
    return error.httpStatus;
  };

  /** Encodes, counts and bills one call's outcome; returns its answer text (none for a notification). */
  const settle = (item: RunItem, request: RpcRequest, bill: Bill, started: number, ok: boolean, value: unknown): string | undefined => {
    const { call } = item;
    let code = 0;
    let beforeWork = false;
    let text: string | undefined;
    if (ok) {
      if (!call.notification) text = encodeResult(call.id, value);
    } else {
      const thrown = value;
      const error = toRpcError(thrown, request.requestId);
      if (!(thrown instanceof RpcError)) {
        deps.logger.error({ reqId: request.requestId, method: item.metricMethod, backend: item.backend.name, err: thrown }, 'internal error in a JSON-RPC call');
      }
      code = error.code;
      beforeWork = error instanceof LimitExceededError && error.beforeWork;
      if (!call.notification) text = encodeError(call.id, error);
    }
    deps.metrics.rpcCall(request.network.name, item.metricMethod, code, (performance.now() - started) / 1000);
    bill.settle(item.cost, item.metricMethod, beforeWork);
    return text;
  };

  const runCall = async (item: RunItem, request: RpcRequest, ctx: RpcContext, bill: Bill): Promise<string | undefined> => {
    const started = performance.now();
    try {
      const result = await item.backend.call(item.call.method, item.call.params, ctx);
      return settle(item, request, bill, started, true, result);
    } catch (error) {
      return settle(item, request, bill, started, false, error);
    }
  };

  /** Runs the calls of a batch that one backend takes as a whole; one answer text per item. */
  const runGroup = async (backend: Backend, items: RunItem[], request: RpcRequest, ctx: RpcContext, bill: Bill): Promise<(string | undefined)[]> => {
    const started = performance.now();
    let outcomes: CallOutcome[];
    try {
      outcomes = await backend.callBatch!(items.map((item) => ({ method: item.call.method, params: item.call.params })), ctx);
    } catch (error) {
      outcomes = items.map(() => ({ ok: false, error }));
    }
    return items.map((item, i) => {
      const outcome = outcomes[i] ?? { ok: false, error: new Error(`backend ${backend.name} gave no outcome for call ${i}`) };
      if (!outcome.ok) return settle(item, request, bill, started, false, outcome.error);
      try {
        return settle(item, request, bill, started, true, outcome.result);
      } catch (error) {
        // A result that cannot be encoded fails that call only, as in runCall.
        return settle(item, request, bill, started, false, error);
      }
    });
  };

  /**
   * Answers a batch's items concurrently: calls of a backend with `callBatch` go to it as one
   * group (two or more of them), every other item runs on its own as before. Each answer is
   * admitted to the batch's answer budget as it finishes.
   */
  const answerItems = (items: AdmittedItem[], request: RpcRequest, ctx: RpcContext, bill: Bill, budget: ResponseBudget): Promise<(string | undefined)[]> => {
    const parts: (Promise<string | undefined> | string | undefined)[] = new Array(items.length);
    let groups: Map<Backend, number[]> | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.kind === 'run' && item.backend.callBatch) {
        groups ??= new Map();
        const group = groups.get(item.backend);
        if (group) group.push(i);
        else groups.set(item.backend, [i]);
      } else parts[i] = answerItem(item, request, ctx, bill);
    }
    if (groups) {
      for (const [backend, indices] of groups) {
        const run = indices.map((i) => items[i] as RunItem);
        if (run.length === 1) {
          parts[indices[0]!] = runCall(run[0]!, request, ctx, bill);
          continue;
        }
        const texts = runGroup(backend, run, request, ctx, bill);
        indices.forEach((index, k) => (parts[index] = texts.then((all) => all[k])));
      }
    }
    return Promise.all(
      parts.map((part, i) => {
        const item = items[i]!;
        const id = item.kind === 'run' ? item.call.id : item.id;
        const notification = item.kind === 'run' ? item.call.notification : item.notification;
        return part instanceof Promise ? part.then((text) => budget.admit(text, id, notification)) : budget.admit(part, id, notification);
      }),
    );
  };

  const answerItem = (item: AdmittedItem, request: RpcRequest, ctx: RpcContext, bill: Bill): Promise<string | undefined> | string | undefined => {
    if (item.kind === 'run') return runCall(item, request, ctx, bill);
    deps.metrics.rpcCall(request.network.name, item.metricMethod, item.error.code, 0);
    return item.notification ? undefined : encodeError(item.id, item.error);
  };

  /** Reads the body; answers and returns a status when that fails. */
  const readBody = async (ex: RpcExchange, request: RpcRequest): Promise<Buffer | number> => {
    try {
      return await ex.body(deps.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        return fail(ex, request, new PayloadTooLargeError(`Request body exceeds the limit of ${deps.maxBodyBytes} bytes`), null, CLOSE);
      }
      // The client went away, or the server's request timeout answered 408 already.
      ex.destroy();
      return 499;
    }
  };

  /**
   * Scans (depth, values, batch size), charges the values, then parses; answers and returns a
   * status when that fails. Synchronous unless the limiter is.
   */
  const decode = (ex: RpcExchange, request: RpcRequest, body: Buffer, bill: Bill): DecodedBody | number | Promise<DecodedBody | number> => {
    const options = { maxBatchSize: deps.maxBatchSize };
    const parse = (refused: RpcError | undefined): DecodedBody | number => {
      if (refused) return refuse(ex, request, refused, null);
      try {
        return parseBody(body, options);
      } catch (error) {
        return fail(ex, request, toRpcError(error, request.requestId));
      }
    };
    let values: number;
    try {
      values = inspectBody(body, options).values;
    } catch (error) {
      return fail(ex, request, toRpcError(error, request.requestId));
    }
    const charged = bill.chargeValues(values);
    return charged instanceof Promise ? charged.then(parse) : parse(charged);
  };

  const refuse = (ex: RpcExchange, request: RpcRequest, error: RpcError, id: JsonRpcId): number =>
    fail(ex, request, error, id, error instanceof RateLimitedError ? retryAfter(error) : undefined);

  const noContent = (ex: RpcExchange, request: RpcRequest): number => {
    ex.respond(204, request.headers, '');
    return 204;
  };

  /** Admits, charges, runs and answers one (non-batch) call; returns the HTTP status. */
  const answerSingle = async (ex: RpcExchange, request: RpcRequest, bill: Bill, key: ApiKeyRecord, decoded: DecodedItem, outcome: RpcOutcome): Promise<number> => {
    const item = admit(decoded, key, request.network, deps);
    outcome.methods = item.kind === 'run' ? item.call.method : item.metricMethod;
    // A single call refused for its tier is a 403 like the other key problems.
    if (item.kind === 'error' && item.error.httpStatus !== 200) {
      deps.metrics.rpcCall(request.network.name, item.metricMethod, item.error.code, 0);
      return fail(ex, request, item.error, item.id);
    }
    const quota = bill.chargeCalls([item], false);
    const limited = quota instanceof Promise ? await quota : quota;
    if (limited) return refuse(ex, request, limited, item.kind === 'run' ? item.call.id : item.id);
    const ctx = new CallContext(request.requestId, ex, key.id, key.tier);
    const answer = answerItem(item, request, ctx, bill);
    const text = answer instanceof Promise ? await answer : answer;
    if (text === undefined) return noContent(ex, request);
    send(ex, request, 200, text, ctx.answerHeaders());
    return 200;
  };

  /** Admits and charges a batch as a whole, runs its calls concurrently (grouped by backend where one takes batches), answers in order. */
  const answerBatch = async (ex: RpcExchange, request: RpcRequest, bill: Bill, key: ApiKeyRecord, decoded: DecodedItem[], outcome: RpcOutcome): Promise<number> => {
    const items = decoded.map((item) => admit(item, key, request.network, deps));
    outcome.methods = `batch(${items.length})`;
    const limited = await bill.chargeCalls(items, true);
    if (limited) return refuse(ex, request, limited, null);
    const ctx = new CallContext(request.requestId, ex, key.id, key.tier);
    const budget = createResponseBudget(deps.maxResponseBytes, () => ctx.abort());
    const parts = await answerItems(items, request, ctx, bill, budget);
    const answered = parts.filter((p): p is string => p !== undefined);
    if (answered.length === 0) return noContent(ex, request);
    send(ex, request, 200, encodeBatch(answered), ctx.answerHeaders());
    return 200;
  };

  const keyLookupFailed = (ex: RpcExchange, request: RpcRequest, error: unknown): number => {
    if (error instanceof RpcError) return fail(ex, request, error, null, CLOSE);
    // The store is down or unreachable: a load balancer must see the service as unavailable.
    deps.logger.error({ reqId: request.requestId, err: error }, 'API key lookup failed');
    const unavailable = new ServiceUnavailableError('Service temporarily unavailable: API keys cannot be checked', STORE_DOWN_RETRY_AFTER_SEC, { cause: error });
    return fail(ex, request, unavailable, null, retryAfter(unavailable));
  };

  /**
   * Checks HTTP method, content type and key; answers and returns a status, or returns the key.
   * Synchronous when the key is cached (the common case).
   */
  const admitRequest = (ex: RpcExchange, request: RpcRequest): ApiKeyRecord | number | Promise<ApiKeyRecord | number> => {
    if (ex.httpMethod !== 'POST') {
      const error = new InvalidRequestError(`HTTP method ${ex.httpMethod} is not allowed: send JSON-RPC requests with POST`, { httpStatus: 405 });
      return fail(ex, request, error, null, ALLOW_POST);
    }
    const contentType = ex.contentType;
    if (contentType !== undefined && !isJsonContentType(contentType)) {
      const error = new InvalidRequestError(`Unsupported Content-Type ${contentType.slice(0, 100)}: use application/json`, { httpStatus: 415 });
      return fail(ex, request, error, null, CLOSE);
    }
    try {
      if (deps.authenticate) return deps.authenticate(request.apiKey);
      const found = authenticate(deps.keyCache, request.apiKey, ex.origin);
      return found instanceof Promise ? found.catch((error: unknown) => keyLookupFailed(ex, request, error)) : found;
    } catch (error) {
      return keyLookupFailed(ex, request, error);
    }
  };

  /** Handles one HTTP request to the endpoint; resolves once the answer is written. */
  return async function handleRpc(ex: RpcExchange, request: RpcRequest): Promise<RpcOutcome> {
    const outcome: RpcOutcome = { status: 0, methods: '' };
    const admitted = admitRequest(ex, request);
    const key = admitted instanceof Promise ? await admitted : admitted;
    if (typeof key === 'number') {
      outcome.status = key;
      return outcome;
    }
    const body = await readBody(ex, request);
    if (typeof body === 'number') {
      outcome.status = body;
      return outcome;
    }
    const bill = new Bill(deps, key);
    const charged = bill.chargeBody(body.length);
    const refused = charged instanceof Promise ? await charged : charged;
    if (refused) {
      outcome.status = refuse(ex, request, refused, null);
      return outcome;
    }
    const decoding = decode(ex, request, body, bill);
    const decoded = decoding instanceof Promise ? await decoding : decoding;
    if (typeof decoded === 'number') outcome.status = decoded;
    else if (decoded.batch) outcome.status = await answerBatch(ex, request, bill, key, decoded.items, outcome);
    else outcome.status = await answerSingle(ex, request, bill, key, decoded.item, outcome);
    bill.close();
    return outcome;
  };
}
