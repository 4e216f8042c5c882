// The JSON-RPC endpoint `POST [/<network>]/v2/<API_KEY>`: key → body → decode → admission (method,
// tier, cost) → compute-unit quota → backends → encoded answer. Every failure becomes a JSON-RPC
// error body with the HTTP status of the error table (README); nothing thrown escapes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ApiKeyRecord } from '../store/types.js';
import { InternalError, InvalidRequestError, PayloadTooLargeError, RateLimitedError, RpcError, toRpcError } from '../rpc/errors.js';
import type { RpcContext } from '../rpc/methods/methodTable.js';
import { BodyTimeoutError, BodyTooLargeError, readBody } from '../http/readBody.js';
import { decodeBody, type DecodedBody, type JsonRpcId } from './framing/decodeRequest.js';
import { encodeBatch, encodeError, encodeResult } from './framing/encodeResponse.js';
import { admit, type AdmissionDeps, type AdmittedItem } from './middleware/admission.js';
import { authenticate } from './middleware/authenticate.js';
import type { KeyCache } from './keys/keyCache.js';
import type { NetworkRouter } from './router/networkRouter.js';
import type { RateLimiter } from './policy/tokenBucket.js';
import type { UsageRecorder } from './usage/usageRecorder.js';
import type { GatewayMetrics } from './ops/gatewayMetrics.js';

export interface RpcEndpointDeps extends AdmissionDeps {
  keyCache: KeyCache;
  limiter: RateLimiter;
  usage: UsageRecorder;
  metrics: GatewayMetrics;
  logger: Logger;
  maxBodyBytes: number;
  maxBatchSize: number;
  bodyTimeoutMs: number;
}

export interface RpcRequest {
  requestId: string;
  network: NetworkRouter;
  /** The key segment of the path, if any. */
  apiKey: string | undefined;
  /** Headers every answer carries (request id, CORS). */
  headers: Readonly<Record<string, string>>;
}

/** What the endpoint did, for the access log and HTTP metrics. */
export interface RpcOutcome {
  status: number;
  /** Method name, `batch(n)`, or empty when no body was decoded. */
  methods: string;
}

type RunItem = Extract<AdmittedItem, { kind: 'run' }>;

function isJsonContentType(value: string): boolean {
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'application/json-rpc';
}

export function createRpcEndpoint(deps: RpcEndpointDeps) {
  const send = (res: ServerResponse, request: RpcRequest, status: number, body: string, extra?: Record<string, string>) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, {
      ...request.headers,
      ...extra,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  };

  const fail = (res: ServerResponse, request: RpcRequest, error: RpcError, id: JsonRpcId = null, extra?: Record<string, string>): number => {
    send(res, request, error.httpStatus, encodeError(id, error), extra);
    return error.httpStatus;
  };

  const runCall = async (item: RunItem, request: RpcRequest, ctx: RpcContext): Promise<string | undefined> => {
    const { call } = item;
    const started = performance.now();
    let code = 0;
    let text: string | undefined;
    try {
      const result = await item.backend.call(call.method, call.params, ctx);
      if (!call.notification) text = encodeResult(call.id, result);
    } catch (thrown) {
      const error = toRpcError(thrown, request.requestId);
      if (!(thrown instanceof RpcError)) {
        deps.logger.error({ reqId: request.requestId, method: item.metricMethod, backend: item.backend.name, err: thrown }, 'internal error in a JSON-RPC call');
      }
      code = error.code;
      if (!call.notification) text = encodeError(call.id, error);
    }
    deps.metrics.rpcCall(request.network.name, item.metricMethod, code, (performance.now() - started) / 1000);
    return text;
  };

  const answerItem = (item: AdmittedItem, request: RpcRequest, ctx: RpcContext): Promise<string | undefined> | string | undefined => {
    if (item.kind === 'run') return runCall(item, request, ctx);
    deps.metrics.rpcCall(request.network.name, item.metricMethod, item.error.code, 0);
    return item.notification ? undefined : encodeError(item.id, item.error);
  };

  /** Reads and decodes the body; answers and returns a status when that fails. */
  const readRequest = async (req: IncomingMessage, res: ServerResponse, request: RpcRequest): Promise<DecodedBody | number> => {
    let body: Buffer;
    try {
      body = await readBody(req, { maxBytes: deps.maxBodyBytes, timeoutMs: deps.bodyTimeoutMs });
    } catch (error) {
      const close = { Connection: 'close' };
      if (error instanceof BodyTooLargeError) {
        return fail(res, request, new PayloadTooLargeError(`Request body exceeds the limit of ${deps.maxBodyBytes} bytes`), null, close);
      }
      if (error instanceof BodyTimeoutError) {
        return fail(res, request, new InvalidRequestError(`Request body not received within ${deps.bodyTimeoutMs} ms`, { httpStatus: 408 }), null, close);
      }
      res.destroy();
      return 499; // the client went away mid-body
    }
    try {
      return decodeBody(body, { maxBatchSize: deps.maxBatchSize });
    } catch (error) {
      return fail(res, request, toRpcError(error, request.requestId));
    }
  };

  const enforceQuota = async (key: ApiKeyRecord, items: readonly AdmittedItem[]): Promise<RateLimitedError | undefined> => {
    let total = 0;
    for (const item of items) if (item.kind === 'run') total += item.cost;
    const limit = deps.tiers.limit(key.tier);
    if (limit && total > 0) {
      const decision = await deps.limiter.take(key.id, total, limit);
      if (!decision.ok) {
        deps.metrics.rateLimited(key.tier);
        return new RateLimitedError(decision.retryAfterSec);
      }
    }
    deps.metrics.computeUnits(key.tier, total);
    for (const item of items) if (item.kind === 'run') deps.usage.record(key.id, item.metricMethod, item.cost);
    return undefined;
  };

  /** Handles one HTTP request to the endpoint; resolves once the answer is written. */
  return async function handleRpc(req: IncomingMessage, res: ServerResponse, request: RpcRequest): Promise<RpcOutcome> {
    const outcome: RpcOutcome = { status: 0, methods: '' };
    if (req.method !== 'POST') {
      const error = new InvalidRequestError(`HTTP method ${req.method ?? ''} is not allowed: send JSON-RPC requests with POST`, { httpStatus: 405 });
      outcome.status = fail(res, request, error, null, { Allow: 'POST, OPTIONS' });
      return outcome;
    }
    const contentType = req.headers['content-type'];
    if (contentType !== undefined && !isJsonContentType(contentType)) {
      const error = new InvalidRequestError(`Unsupported Content-Type ${contentType.slice(0, 100)}: use application/json`, { httpStatus: 415 });
      outcome.status = fail(res, request, error, null, { Connection: 'close' });
      return outcome;
    }

    let key: ApiKeyRecord;
    try {
      key = await authenticate(deps.keyCache, request.apiKey, req.headers.origin);
    } catch (error) {
      if (!(error instanceof RpcError)) {
        deps.logger.error({ reqId: request.requestId, err: error }, 'API key lookup failed');
        outcome.status = fail(res, request, new InternalError(request.requestId, { cause: error }), null, {});
        return outcome;
      }
      outcome.status = fail(res, request, error, null, { Connection: 'close' });
      return outcome;
    }

    const decoded = await readRequest(req, res, request);
    if (typeof decoded === 'number') {
      outcome.status = decoded;
      return outcome;
    }

    const controller = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) controller.abort();
    };
    res.once('close', onClose);
    const ctx: RpcContext = { requestId: request.requestId, signal: controller.signal };

    if (!decoded.batch) {
      const item = admit(decoded.item, key, request.network, deps);
      outcome.methods = item.kind === 'run' ? item.call.method : item.metricMethod;
      // A single call refused for its tier is a 403 like the other key problems.
      if (item.kind === 'error' && item.error.httpStatus !== 200) {
        deps.metrics.rpcCall(request.network.name, item.metricMethod, item.error.code, 0);
        outcome.status = fail(res, request, item.error, item.id);
        return outcome;
      }
      const limited = await enforceQuota(key, [item]);
      if (limited) {
        outcome.status = fail(res, request, limited, item.kind === 'run' ? item.call.id : item.id, { 'Retry-After': String(limited.retryAfterSec) });
        return outcome;
      }
      const text = await answerItem(item, request, ctx);
      outcome.status = text === undefined ? 204 : 200;
      if (text === undefined) {
        res.writeHead(204, request.headers);
        res.end();
      } else send(res, request, 200, text);
      return outcome;
    }

    const items = decoded.items.map((item) => admit(item, key, request.network, deps));
    outcome.methods = `batch(${items.length})`;
    const limited = await enforceQuota(key, items);
    if (limited) {
      outcome.status = fail(res, request, limited, null, { 'Retry-After': String(limited.retryAfterSec) });
      return outcome;
    }
    const parts = await Promise.all(items.map((item) => answerItem(item, request, ctx)));
    const answered = parts.filter((p): p is string => p !== undefined);
    if (answered.length === 0) {
      outcome.status = 204;
      res.writeHead(204, request.headers);
      res.end();
    } else {
      outcome.status = 200;
      send(res, request, 200, encodeBatch(answered));
    }
    return outcome;
  };
}
