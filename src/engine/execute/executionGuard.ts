// Keeps a long execution honest: it fails with a timeout error once the deadline passes (or a
// cancellation error once its signal aborts) and, while running, yields to the event loop every few
// milliseconds so other requests (and a worker's cancel message) are served. The checks ride on JUMP/JUMPI (every loop needs one) through the opcode probe, so straight-line code
// pays nothing and loops pay a counter increment.
import type { EVM } from '@ethereumjs/evm';
import type { VM } from '@ethereumjs/vm';
import { ServerError } from '../../rpc/errors.js';
import { installOpcodeProbe, type OpcodeHook } from '../record/opcodeProbe.js';
import { OP } from '../record/opcodeInfo.js';

export interface ExecutionGuardOptions {
  /** Absolute deadline on the `now()` clock, or undefined for none. */
  deadlineMs: number | undefined;
  /** Yield to the event loop after this much busy time (ms). */
  yieldEveryMs: number;
  now: () => number;
  /** Aborted when the execution's requester is gone (client disconnected): the run stops at the next check. */
  signal?: AbortSignal;
}

/** Thrown when an execution passes its deadline; never a partial trace. */
export class ExecutionTimeoutError extends ServerError {
  override name = 'ExecutionTimeoutError';
  constructor(timeoutMs: number) {
    super('execution timeout', { details: `exceeded ${timeoutMs} ms` });
  }
}

/** Thrown when an execution's signal aborts (its client went away); no one reads the answer. */
export class ExecutionCancelledError extends ServerError {
  override name = 'ExecutionCancelledError';
  constructor() {
    super('execution cancelled', { details: 'the client disconnected' });
  }
}

const CHECK_EVERY = 512;

/** Installs the guard on `vm`; returns the uninstall function. */
export function installExecutionGuard(vm: VM, options: ExecutionGuardOptions, timeoutMs: number): () => void {
  let counter = 0;
  let lastYield = options.now();
  const { signal } = options;
  const check = async (): Promise<void> => {
    const now = options.now();
    if (options.deadlineMs !== undefined && now > options.deadlineMs) throw new ExecutionTimeoutError(timeoutMs);
    if (signal?.aborted) throw new ExecutionCancelledError();
    if (now - lastYield >= options.yieldEveryMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = options.now();
      if (signal?.aborted) throw new ExecutionCancelledError();
    }
  };
  const hook: OpcodeHook = (_rs, next) => {
    if (++counter % CHECK_EVERY !== 0) return next();
    return check().then(next);
  };
  const onMessage = (): void => {
    if (options.deadlineMs !== undefined && options.now() > options.deadlineMs) throw new ExecutionTimeoutError(timeoutMs);
    if (signal?.aborted) throw new ExecutionCancelledError();
  };
  const evm = vm.evm as EVM;
  evm.events.on('beforeMessage', onMessage);
  const uninstall = installOpcodeProbe(evm, new Map([
    [OP.JUMP, hook],
    [OP.JUMPI, hook],
  ]));
  return () => {
    evm.events.off('beforeMessage', onMessage);
    uninstall();
  };
}

/**
 * The guard's deadline and cancellation as a synchronous check, for the interpreter (which calls it
 * at message starts and every few thousand jumps instead of installing step listeners).
 */
export function guardCheck(guard: (ExecutionGuardOptions & { timeoutMs: number }) | undefined): (() => void) | undefined {
  if (!guard) return undefined;
  return () => {
    if (guard.deadlineMs !== undefined && guard.now() > guard.deadlineMs) throw new ExecutionTimeoutError(guard.timeoutMs);
    if (guard.signal?.aborted) throw new ExecutionCancelledError();
  };
}
