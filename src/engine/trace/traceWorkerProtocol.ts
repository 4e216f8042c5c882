// The messages between the trace pool and its workers, and how errors cross: as plain data that
// the pool turns back into the same error classes, so a caller cannot tell where a trace ran.
import {
  ExecutionRevertedError,
  InvalidParamsError,
  LimitExceededError,
  ResourceNotFoundError,
  RpcError,
  ServerError,
  ServiceError,
} from '../../rpc/errors.js';
import { ExecutionCancelledError, ExecutionTimeoutError } from '../execute/executionGuard.js';
import type { StepCaps } from '../record/stepBudget.js';
import type { ForkPoint } from '../state/remoteTrieNodes.js';
import type { TraceJob } from './traceJob.js';

/** What a worker is started with. */
export interface TraceWorkerData {
  dataDir: string;
  chainId: bigint;
  hardfork: string;
  gasCap: bigint;
  /** Caps on struct logs and vmTrace per job (see createTracer). */
  stepCaps?: StepCaps;
  /** Longest timeout a job may run with, ms (jobs arrive clamped already; see createTracer). */
  maxTimeoutMs?: number;
  /** Budget of the worker's chain caches, estimated bytes (engine/chain/chainCacheBudget.ts). */
  chainCacheBytes?: number;
  /**
   * Fork mode: the remote block the chain was forked from. The worker loads the trie nodes it lacks
   * through the pool (WorkerRemoteCall), which sends the call with the main thread's client.
   */
  fork?: ForkPoint;
}

export interface WorkerRequest {
  id: number;
  job: TraceJob;
}

/**
 * Stops job `cancel` (its client went away): the worker aborts the job's guard signal if it runs
 * it, or drops it and answers it with ExecutionCancelledError if it holds it still.
 */
export interface WorkerCancel {
  cancel: number;
}

/**
 * Asks for job `withdraw` back (another worker is idle): a worker that holds it still drops it and
 * answers `{ withdrawn }`; one that has started it answers it as usual.
 */
export interface WorkerWithdraw {
  withdraw: number;
}

/** An error as plain data. */
export interface WireError {
  name: string;
  message: string;
  shortMessage?: string;
  details?: string;
  code?: number;
  data?: unknown;
}

/** Fork mode: a worker asks the pool to send one JSON-RPC call to the fork remote. */
export interface WorkerRemoteCall {
  remote: number;
  method: string;
  params: unknown[];
}

/** The pool's answer to a WorkerRemoteCall. */
export type RemoteCallAnswer = { remoteReply: number; ok: true; result: unknown } | { remoteReply: number; ok: false; error: WireError };

export type WorkerReply = WorkerRemoteCall | { ready: true } | { withdrawn: number } | { id: number; ok: true; texts: string[] } | { id: number; ok: false; error: WireError };

/** `error` as structured-clonable data (no stack, no cause). */
export function errorToWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const wire: WireError = { name: error.name, message: error.message };
  if (error instanceof ServiceError) {
    wire.shortMessage = error.shortMessage;
    wire.details = error.details;
  }
  if (error instanceof RpcError) {
    wire.code = error.code;
    wire.data = error.data;
  }
  return wire;
}

const REVERTED_PREFIX = 'execution reverted: ';

const RPC_CLASSES: Record<string, new (message: string, options: { details?: string; data?: unknown; code?: number }) => RpcError> = {
  InvalidParamsError,
  ResourceNotFoundError,
  ServerError,
  LimitExceededError,
};

/** The error a worker reported, as an instance of its class again (a generic RpcError keeps the code). */
export function errorFromWire(wire: WireError): Error {
  if (wire.name === 'ExecutionTimeoutError') {
    const error = new ExecutionTimeoutError(0);
    return Object.assign(error, { message: wire.message, details: wire.details });
  }
  if (wire.name === 'ExecutionCancelledError') return new ExecutionCancelledError();
  if (wire.name === 'ExecutionRevertedError') {
    // "execution reverted[: reason]" with the revert bytes as data (eth_call / eth_estimateGas).
    const reason = wire.message.startsWith(REVERTED_PREFIX) ? wire.message.slice(REVERTED_PREFIX.length) : undefined;
    return new ExecutionRevertedError(typeof wire.data === 'string' ? wire.data : '0x', reason);
  }
  const options = { details: wire.details, data: wire.data };
  const Known = RPC_CLASSES[wire.name];
  if (Known) return new Known(wire.shortMessage ?? wire.message, options);
  if (wire.code !== undefined) return new RpcError(wire.shortMessage ?? wire.message, { ...options, code: wire.code });
  if (wire.shortMessage !== undefined) return new ServiceError(wire.shortMessage, { details: wire.details });
  const error = new Error(wire.message);
  error.name = wire.name;
  return error;
}
