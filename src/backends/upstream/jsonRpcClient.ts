// The one JSON-RPC client over HTTP(S) for every call to a node (upstream backends, the follower):
// single calls and whole batches, each answer checked before anyone sees it, every failure an
// UpstreamError (rpc/errors.ts) that says whether it may be retried. Choosing upstreams is not here.
import { noteAnswerSize } from './largeAnswerGc.js';
import { MAX_ANSWER_DEPTH, isNestedDeeperThan } from './answerDepth.js';
import {
  RpcError,
  UpstreamBadAnswerError,
  UpstreamHttpError,
  upstreamRpcError,
} from '../../rpc/errors.js';
import { isWriteMethod } from './blockParams.js';
import { createHttp1Pool } from './http1/http1Pool.js';
import type { HttpAnswer } from './http1/parseHttpAnswer.js';

export interface JsonRpcClientOptions {
  /** http(s) URL of the node; user info in it becomes Basic auth. */
  url: string;
  /** Extra request headers, e.g. an `Authorization` the node needs. */
  headers?: Readonly<Record<string, string>>;
  /** Deadline of one call or batch, from sending to the answer's last byte. Default 30,000 ms. */
  timeoutMs?: number;
  /** Largest answer body read; reading stops there and the call fails. Default 128 MiB. */
  maxResponseBytes?: number;
  /** Name in error messages and logs; never the URL, which may hold a key. Default `upstream`. */
  label?: string;
  /** Keep-alive sockets kept open to the node. Default 64. */
  maxSockets?: number;
}

export interface JsonRpcCallOptions {
  /** Aborts the call (UpstreamAbortedError, not retryable), e.g. when the client went away. */
  signal?: AbortSignal;
  /** Overrides the client's deadline for this call, in ms. */
  timeoutMs?: number;
}

export interface JsonRpcCall {
  method: string;
  /** Sent as is; omitted from the request when undefined. */
  params?: unknown;
}

/** One call's answer in a batch: its result, or the node's JSON-RPC error as an RpcError. */
export type JsonRpcOutcome = { ok: true; result: unknown } | { ok: false; error: RpcError };

export interface JsonRpcClient {
  readonly label: string;
  /** One call; resolves to its result, rejects with the node's RpcError or an UpstreamError. */
  call(method: string, params?: unknown, options?: JsonRpcCallOptions): Promise<unknown>;
  /**
   * One HTTP batch; resolves to one outcome per call, in the calls' order. Rejects (UpstreamError,
   * or the node's error for a batch it refused whole) when the batch as a whole has no usable answer.
   */
  batch(calls: readonly JsonRpcCall[], options?: JsonRpcCallOptions): Promise<JsonRpcOutcome[]>;
  /** Closes the idle keep-alive sockets. */
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

type Answer = { id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

export function createJsonRpcClient(options: JsonRpcClientOptions): JsonRpcClient {
  const url = new URL(options.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`upstream URL must be http(s), got ${url.protocol}`);
  const label = options.label ?? 'upstream';
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
  if (url.username && !Object.keys(options.headers ?? {}).some((k) => k.toLowerCase() === 'authorization')) {
    headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new TypeError(`upstream header ${JSON.stringify(name)} holds a line break`);
    headers[name] = value;
  }
  const pool = createHttp1Pool({ url, headers, label, maxSockets: options.maxSockets ?? 64, maxResponseBytes: maxBytes });
  let nextId = 1;

  const post = (body: string, callOptions: JsonRpcCallOptions, resendOnStale: boolean): Promise<HttpAnswer> =>
    pool.post(body, { deadlineMs: callOptions.timeoutMs ?? timeoutMs, signal: callOptions.signal, resendOnStale });

  const parse = (answer: HttpAnswer): unknown => {
    noteAnswerSize(answer.text.length);
    if (isNestedDeeperThan(answer.text, MAX_ANSWER_DEPTH)) throw new UpstreamBadAnswerError(label, `nested deeper than ${MAX_ANSWER_DEPTH} levels`);
    try {
      return JSON.parse(answer.text);
    } catch {
      // A non-2xx status with a body that is not JSON (a proxy's error page) is an HTTP error.
      if (answer.status < 200 || answer.status > 299) throw new UpstreamHttpError(label, answer.status);
      throw new UpstreamBadAnswerError(label, `not JSON (HTTP ${answer.status}, ${answer.text.length} bytes)`);
    }
  };

  /** Checks one answer object's shape: jsonrpc 2.0, result xor a well-formed error. */
  const checkAnswer = (value: unknown): Answer => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UpstreamBadAnswerError(label, 'an answer is not a JSON object');
    const answer = value as Record<string, unknown>;
    if (answer.jsonrpc !== '2.0') throw new UpstreamBadAnswerError(label, 'jsonrpc is not "2.0"');
    const hasResult = 'result' in answer;
    const hasError = 'error' in answer;
    if (hasResult === hasError) throw new UpstreamBadAnswerError(label, 'an answer must hold exactly one of result and error');
    if (hasError) {
      const error = answer.error as Record<string, unknown> | null;
      if (typeof error !== 'object' || error === null || !Number.isInteger(error.code) || typeof error.message !== 'string') {
        throw new UpstreamBadAnswerError(label, 'error is not {code: integer, message: string}');
      }
    }
    return answer as Answer;
  };

  /** A non-2xx answer is used only when it is a JSON-RPC error answer; otherwise it is an HTTP error. */
  const requireOk = (answer: HttpAnswer, body: unknown) => {
    if (answer.status >= 200 && answer.status <= 299) return;
    const isErrorAnswer = typeof body === 'object' && body !== null && !Array.isArray(body) && 'error' in body;
    if (!isErrorAnswer) throw new UpstreamHttpError(label, answer.status);
  };

  return {
    label,
    async call(method, params, callOptions = {}) {
      const id = nextId++;
      const request = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
      const reply = await post(JSON.stringify(request), callOptions, !isWriteMethod(method));
      const body = parse(reply);
      requireOk(reply, body);
      const answer = checkAnswer(body);
      // A node that could not read the request's id answers an error with id null (JSON-RPC 2.0 §5).
      if (answer.id !== id && !(answer.id === null && answer.error)) throw new UpstreamBadAnswerError(label, `answer id ${JSON.stringify(answer.id)} is not the request's id ${id}`);
      if (answer.error) throw upstreamRpcError(method, answer.error);
      return answer.result;
    },
    async batch(calls, callOptions = {}) {
      if (calls.length === 0) return [];
      const first = nextId;
      nextId += calls.length;
      const request = calls.map((c, i) => (c.params === undefined ? { jsonrpc: '2.0', id: first + i, method: c.method } : { jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
      const reply = await post(JSON.stringify(request), callOptions, !calls.some((c) => isWriteMethod(c.method)));
      const body = parse(reply);
      requireOk(reply, body);
      if (!Array.isArray(body)) {
        // A node that refuses the batch as a whole (too large, batches off) answers one error.
        const answer = checkAnswer(body);
        if (answer.error && answer.id === null) throw upstreamRpcError(calls[0]!.method, answer.error);
        throw new UpstreamBadAnswerError(label, 'a batch answer is not an array');
      }
      if (body.length !== calls.length) throw new UpstreamBadAnswerError(label, `batch of ${calls.length} answered with ${body.length} answers`);
      const outcomes: (JsonRpcOutcome | undefined)[] = new Array(calls.length);
      for (const item of body) {
        const answer = checkAnswer(item);
        const index = typeof answer.id === 'number' ? answer.id - first : -1;
        if (!Number.isInteger(index) || index < 0 || index >= calls.length || outcomes[index]) {
          throw new UpstreamBadAnswerError(label, `batch answer id ${JSON.stringify(answer.id)} was not asked for or came twice`);
        }
        outcomes[index] = answer.error ? { ok: false, error: upstreamRpcError(calls[index]!.method, answer.error) } : { ok: true, result: answer.result };
      }
      return outcomes as JsonRpcOutcome[];
    },
    close: () => pool.close(),
  };
}
