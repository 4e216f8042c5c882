// The service's error classes and their JSON-RPC codes. Only the RPC boundary turns these into
// `{code, message, data}`; everything else throws instances of these classes.

export interface ServiceErrorOptions {
  details?: string;
  cause?: unknown;
}

/** Base of every error the service throws on purpose. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  /** One-line message safe to show to a caller. */
  readonly shortMessage: string;
  readonly details?: string;
  constructor(shortMessage: string, options: ServiceErrorOptions = {}) {
    super(options.details ? `${shortMessage}: ${options.details}` : shortMessage, { cause: options.cause });
    this.shortMessage = shortMessage;
    this.details = options.details;
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
  constructor(method: string) {
    super(`Unsupported method: ${method}`);
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
    super(`${message}; retry in ${retryAfterSec} s`, { ...options, httpStatus: 503, data: { retryAfterSec } });
    this.retryAfterSec = retryAfterSec;
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

/** Turns anything thrown into an RpcError; unknown errors become InternalError with the request id only. */
export function toRpcError(error: unknown, requestId?: string): RpcError {
  if (error instanceof RpcError) return error;
  return new InternalError(requestId, { cause: error });
}
