// Keeps a long execution honest: it fails with a timeout error once the deadline passes and, while
// running, yields to the event loop every few milliseconds so other requests are served. Both
// checks ride on JUMP/JUMPI (every loop needs one) through the opcode probe, so straight-line code
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
}

/** Thrown when an execution passes its deadline; never a partial trace. */
export class ExecutionTimeoutError extends ServerError {
  override name = 'ExecutionTimeoutError';
  constructor(timeoutMs: number) {
    super('execution timeout', { details: `exceeded ${timeoutMs} ms` });
  }
}

const CHECK_EVERY = 512;

/** Installs the guard on `vm`; returns the uninstall function. */
export function installExecutionGuard(vm: VM, options: ExecutionGuardOptions, timeoutMs: number): () => void {
  let counter = 0;
  let lastYield = options.now();
  const check = async (): Promise<void> => {
    const now = options.now();
    if (options.deadlineMs !== undefined && now > options.deadlineMs) throw new ExecutionTimeoutError(timeoutMs);
    if (now - lastYield >= options.yieldEveryMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      lastYield = options.now();
    }
  };
  const hook: OpcodeHook = (_rs, next) => {
    if (++counter % CHECK_EVERY !== 0) return next();
    return check().then(next);
  };
  const onMessage = (): void => {
    if (options.deadlineMs !== undefined && options.now() > options.deadlineMs) throw new ExecutionTimeoutError(timeoutMs);
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
