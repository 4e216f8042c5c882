// The service's error classes and their JSON-RPC codes. Only the RPC boundary turns these into
// `{code, message, data}`; everything else throws instances of these classes.

export interface ServiceErrorOptions {
  details?: string;
  cause?: unknown;
  /** Whether the same call may be sent again (to another upstream); decided where the error is created. */
  retryable?: boolean;
}

/** Base of every error the service throws on purpose. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  /** One-line message safe to show to a caller. */
  readonly shortMessage: string;
  readonly details?: string;
  /**
   * Whether sending the same call again (elsewhere, or later) may succeed: a connection failure
   * or timeout may, a node's answer to a bad call may not. Set where the error is created, never
   * guessed later from its message (STYLE.md §4). False unless the creator says so.
   */
  readonly retryable: boolean;
  constructor(shortMessage: string, options: ServiceErrorOptions = {}) {
    super(options.details ? `${shortMessage}: ${options.details}` : shortMessage, { cause: options.cause });
    this.shortMessage = shortMessage;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }
}

/** An error with a JSON-RPC code, optional `data`, and the HTTP status the gateway answers with. */
export class RpcError extends ServiceError {
  override name = 'RpcError';
  static readonly code: number = -32603;
  readonly code: number;
  readonly data?: unknown;
  /** HTTP status for a single (non-batch) request that fails with this error. */
  readonly httpStatus: number;
  constructor(message: string, options: ServiceErrorOptions & { data?: unknown; code?: number; httpStatus?: number } = {}) {
    super(message, options);
    this.code = options.code ?? (this.constructor as typeof RpcError).code;
    this.data = options.data;
    this.httpStatus = options.httpStatus ?? 200;
  }
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export class ParseError extends RpcError {
  override name = 'ParseError';
  static override readonly code = -32700;
}

export class InvalidRequestError extends RpcError {
  override name = 'InvalidRequestError';
  static override readonly code = -32600;
}

export class MethodNotFoundError extends RpcError {
  override name = 'MethodNotFoundError';
  static override readonly code = -32601;
  /** `message` replaces the default text, e.g. with an upstream node's own words. */
  constructor(method: string, options: ServiceErrorOptions & { message?: string; data?: unknown } = {}) {
    super(options.message ?? `Unsupported method: ${method}`, options);
  }
}

export class InvalidParamsError extends RpcError {
  override name = 'InvalidParamsError';
  static override readonly code = -32602;
}

export class InternalError extends RpcError {
  override name = 'InternalError';
  static override readonly code = -32603;
  constructor(requestId?: string, options: ServiceErrorOptions = {}) {
    super(requestId ? `Internal error (request id ${requestId})` : 'Internal error', {
      ...options,
      data: requestId ? { requestId } : undefined,
    });
  }
}

/** Generic server-side failure (-32000), e.g. a transaction the pool refuses (nonce, funds). */
export class ServerError extends RpcError {
  override name = 'ServerError';
  static override readonly code = -32000;
}

/** A reverted eth_call/eth_estimateGas: code 3 with the revert bytes in `data` (geth behaviour). */
export class ExecutionRevertedError extends RpcError {
  override name = 'ExecutionRevertedError';
  static override readonly code = 3;
  constructor(revertData: string, reason?: string) {
    super(reason ? `execution reverted: ${reason}` : 'execution reverted', { data: revertData });
  }
}

export class ResourceNotFoundError extends RpcError {
  override name = 'ResourceNotFoundError';
  static override readonly code = -32001;
}

export class LimitExceededError extends RpcError {
  override name = 'LimitExceededError';
  static override readonly code = -32005;
  /**
   * True when the call was refused before any work (a full queue, a range over its cap): the
   * gateway gives its compute units back. Set where the error is created; a limit reached while
   * working (a trace over its output cap) is billed.
   */
  readonly beforeWork: boolean;
  constructor(message: string, options: ServiceErrorOptions & { data?: unknown; beforeWork?: boolean } = {}) {
    super(message, options);
    this.beforeWork = options.beforeWork ?? false;
  }
}

/** Missing or unknown API key: HTTP 401. */
export class UnauthorizedError extends RpcError {
  override name = 'UnauthorizedError';
  static override readonly code = -32001;
  constructor(message = 'Must be authenticated!') {
    super(message, { httpStatus: 401 });
  }
}

/** Inactive key, origin not allowed, or a method above the key's tier: HTTP 403. */
export class ForbiddenError extends RpcError {
  override name = 'ForbiddenError';
  static override readonly code = -32003;
  constructor(message: string, data?: unknown) {
    super(message, { httpStatus: 403, data });
  }
}

/** Over the compute-unit budget: HTTP 429 with Retry-After. */
export class RateLimitedError extends RpcError {
  override name = 'RateLimitedError';
  static override readonly code = 429;
  readonly retryAfterSec: number;
  constructor(retryAfterSec: number) {
    super('Your app has exceeded its compute units per second capacity.', {
      httpStatus: 429,
      retryable: true,
      data: { retryAfterSec },
    });
    this.retryAfterSec = retryAfterSec;
  }
}

/**
 * A request or batch that costs more compute units than the key's bucket can ever hold: HTTP 429
 * without Retry-After, since waiting never makes it fit. `data` names the cost and the limit.
 */
export class CostOverLimitError extends RpcError {
  override name = 'CostOverLimitError';
  static override readonly code = 429;
  constructor(message: string, data: { costCu: number; burstCu: number; cuPerSecond: number }) {
    super(message, { httpStatus: 429, data });
  }
}

/** The service cannot answer now (e.g. its store is unreachable): HTTP 503 with Retry-After. */
export class ServiceUnavailableError extends RpcError {
  override name = 'ServiceUnavailableError';
  static override readonly code = -32603;
  readonly retryAfterSec: number;
  constructor(message: string, retryAfterSec: number, options: ServiceErrorOptions = {}) {
    super(`${message}; retry in ${retryAfterSec} s`, { retryable: true, ...options, httpStatus: 503, data: { retryAfterSec } });
    this.retryAfterSec = retryAfterSec;
  }
}

/**
 * A write refused because the disk holding the data dir is full (SQLite's SQLITE_FULL): nothing of
 * it was stored, reads still work, and the same write succeeds once space is freed. Code -32002
 * (EIP-1474 "resource unavailable"), HTTP 507 (Insufficient Storage); `data.file` names the file.
 */
export class StorageFullError extends RpcError {
  override name = 'StorageFullError';
  static override readonly code = -32002;
  readonly file: string;
  constructor(file: string, cause?: unknown) {
    super(`the disk holding the data dir is full: ${file} cannot grow, so nothing was written; free space on it and send this again`, {
      cause,
      retryable: true,
      httpStatus: 507,
      data: { file, retryAfterSec: 5 },
    });
    this.file = file;
  }

  /** `error` as a StorageFullError naming `file` when SQLite says the disk is full; else `error` itself. */
  static from(error: unknown, file: string): unknown {
    if (error instanceof StorageFullError) return error;
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'SQLITE_FULL' ? new StorageFullError(file, error) : error;
  }
}

/** HTTP-level refusal before JSON-RPC decoding (body or batch too large). */
export class PayloadTooLargeError extends RpcError {
  override name = 'PayloadTooLargeError';
  static override readonly code = -32600;
  constructor(message: string) {
    super(message, { httpStatus: 413 });
  }
}

/**
 * A JSON-RPC upstream (a node behind the gateway) failed to give a usable answer: -32603 to the
 * caller, with the upstream's label (never its URL, which may hold a key). `retryable` says
 * whether another try (on another upstream) may succeed; such an answer is never cached.
 */
export class UpstreamError extends RpcError {
  override name = 'UpstreamError';
  static override readonly code = -32603;
  /** The upstream's label (a name from the config), for logs and metrics. */
  readonly upstream: string;
  constructor(upstream: string, message: string, options: ServiceErrorOptions = {}) {
    super(`Upstream ${upstream}: ${message}`, options);
    this.upstream = upstream;
  }
}

/** The connection failed: refused, reset, closed before the whole answer. Retryable. */
export class UpstreamConnectionError extends UpstreamError {
  override name = 'UpstreamConnectionError';
  constructor(upstream: string, message: string, options: ServiceErrorOptions = {}) {
    super(upstream, message, { retryable: true, ...options });
  }
}

/** No whole answer within the call's deadline. Retryable. */
export class UpstreamTimeoutError extends UpstreamError {
  override name = 'UpstreamTimeoutError';
  constructor(upstream: string, timeoutMs: number) {
    super(upstream, `no answer within ${timeoutMs} ms`, { retryable: true });
  }
}

/** An HTTP status other than 2xx without a JSON-RPC error body: retryable for 5xx, 408 and 429 only. */
export class UpstreamHttpError extends UpstreamError {
  override name = 'UpstreamHttpError';
  readonly status: number;
  constructor(upstream: string, status: number) {
    super(upstream, `HTTP ${status}`, { retryable: status >= 500 || status === 408 || status === 429 });
    this.status = status;
  }
}

/**
 * An answer that is not what was asked for: not JSON-RPC 2.0, another request's id, a batch
 * answer without exactly the ids asked, both or neither of result and error. Retryable on another
 * upstream; nothing in it is used.
 */
export class UpstreamBadAnswerError extends UpstreamError {
  override name = 'UpstreamBadAnswerError';
  constructor(upstream: string, message: string) {
    super(upstream, `bad answer: ${message}`, { retryable: true });
  }
}

/** An answer body over the client's size limit; reading stops at the limit. Retryable elsewhere. */
export class UpstreamAnswerTooLargeError extends UpstreamBadAnswerError {
  override name = 'UpstreamAnswerTooLargeError';
  constructor(upstream: string, maxBytes: number) {
    super(upstream, `answer larger than the limit of ${maxBytes} bytes`);
  }
}

/** The caller gave up (its AbortSignal fired) before the answer. Not retryable. */
export class UpstreamAbortedError extends UpstreamError {
  override name = 'UpstreamAbortedError';
  constructor(upstream: string) {
    super(upstream, 'call aborted by the caller');
  }
}

/** Codes an upstream node may answer that say "this node cannot now", not "this call is wrong". */
const RETRYABLE_NODE_CODES = new Set([-32603, -32005]);

/**
 * A node's JSON-RPC error answer as the matching class of this file, its code, message and data
 * passed through unchanged. Retryable only for codes that blame the node (internal error, limit
 * exceeded); a revert or bad params would be the same on any node.
 */
export function upstreamRpcError(method: string, error: { code: number; message: string; data?: unknown }): RpcError {
  const retryable = RETRYABLE_NODE_CODES.has(error.code);
  const options = { data: error.data, retryable };
  switch (error.code) {
    case InvalidRequestError.code:
      return new InvalidRequestError(error.message, options);
    case MethodNotFoundError.code:
      return new MethodNotFoundError(method, { ...options, message: error.message });
    case InvalidParamsError.code:
      return new InvalidParamsError(error.message, options);
    case ServerError.code:
      return new ServerError(error.message, options);
    case ResourceNotFoundError.code:
      return new ResourceNotFoundError(error.message, options);
    case LimitExceededError.code:
      return new LimitExceededError(error.message, options);
    case ExecutionRevertedError.code:
      if (typeof error.data === 'string' && /^execution reverted\b/.test(error.message)) {
        const reason = error.message.replace(/^execution reverted:?\s*/, '');
        return new ExecutionRevertedError(error.data, reason || undefined);
      }
      return new RpcError(error.message, { ...options, code: error.code });
    default:
      return new RpcError(error.message, { ...options, code: error.code });
  }
}

/** Turns anything thrown into an RpcError; unknown errors become InternalError with the request id only. */
export function toRpcError(error: unknown, requestId?: string): RpcError {
  if (error instanceof RpcError) return error;
  return new InternalError(requestId, { cause: error });
}

/**
 * No upstream of a network could answer a call now: all out (wrong chain, unreachable, cooling
 * down after failures) or every one tried failed within the caller's budget. -32005 (a "try later"
 * limit, as providers answer), counted as refused before work; the message names the network,
 * the method and each upstream's reason (labels, never URLs).
 */
export class NoHealthyUpstreamError extends LimitExceededError {
  override name = 'NoHealthyUpstreamError';
  constructor(network: string, method: string, reasons: readonly string[]) {
    super(`No healthy upstream on network ${network} for ${method}${reasons.length ? `: ${reasons.join('; ')}` : ''}`, {
      retryable: true,
      beforeWork: true,
      data: { network, method },
    });
  }
}

/**
 * An upstream trace that cannot be turned into an execution record: malformed, truncated or
 * inconsistent (frames that do not nest, gas used above gas). -32603, the upstream's fault; the
 * router may try another upstream or path. Never a wrong trace.
 */
export class UpstreamTraceMalformedError extends RpcError {
  override name = 'UpstreamTraceMalformedError';
  static override readonly code = -32603;
  constructor(source: string, message: string) {
    super(`upstream ${source} output is malformed: ${message}`, { retryable: true });
  }
}

/**
 * Fork execution could not read the state it runs on (the upstream failed the read): the execution
 * stops rather than read zeros. -32005 like the routing failure it carries (`cause`), retryable,
 * naming what was read and at which block.
 */
export class ForkStateReadError extends LimitExceededError {
  override name = 'ForkStateReadError';
  constructor(what: string, blockHash: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`fork execution could not read ${what} at block ${blockHash}: ${reason}`.slice(0, 600), { retryable: true, cause });
  }
}

/**
 * The upstream's trace does not hold what the asked format needs (Parity traces have no logs,
 * geth's callTracer no gas refund): translation refuses rather than invent data. -32603; the
 * router may take another path (fork execution). `missing` names what is absent.
 */
export class TranslationGapError extends RpcError {
  override name = 'TranslationGapError';
  static override readonly code = -32603;
  readonly missing: string;
  constructor(method: string, missing: string, message: string) {
    super(`${method} cannot be translated from this upstream's traces: ${message}`, { data: { missing } });
    this.missing = missing;
  }
}

/**
 * A file in the data dir that its store cannot read (SQLite: "file is not a database", a torn or
 * overwritten header): start-up stops naming the file and the way out, and leaves the file as it is.
 */
export class UnreadableDataFileError extends ServiceError {
  override name = 'UnreadableDataFileError';
  constructor(file: string, cause: unknown) {
    super(`${file} cannot be read (${(cause as Error)?.message ?? String(cause)})`, {
      details: 'the file is left as it is; restore it from a backup, or move it away and start with --accept-data-loss to begin with an empty one',
      cause,
    });
  }
}
