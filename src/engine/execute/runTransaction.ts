// Runs one transaction on a VM, recorded for the given needs or not recorded at all, under an
// execution guard. Invalid transactions (nonce, funds, fee cap) become ServerError (-32000) with
// ethereumjs's reason; EVM halts are data in the record.
import type { Block } from '@ethereumjs/block';
import type { TypedTransaction } from '@ethereumjs/tx';
import { runTx as vmRunTx, type RunTxResult, type VM } from '@ethereumjs/vm';
import { RpcError, ServerError } from '../../rpc/errors.js';
import { attachRecorder } from '../record/createRecorder.js';
import type { ExecutionRecord, RecordNeeds } from '../record/types.js';
import { installExecutionGuard, type ExecutionGuardOptions } from './executionGuard.js';
import { installFastEipLookup } from './fastEipLookup.js';

export interface RunTransactionOptions {
  vm: VM;
  tx: TypedTransaction;
  block: Block;
  /** Skip the nonce check (calls). */
  skipNonce?: boolean;
  /** Deadline and yielding; omitted = no deadline, yield every 20 ms. */
  guard?: ExecutionGuardOptions & { timeoutMs: number };
  /**
   * Runs after the recorder read the pre-state and before runTx; the function it returns runs
   * after runTx, before the post-state is read (see runCall's contract-sender case).
   */
  prepare?: () => Promise<() => Promise<void>>;
}

const DEFAULT_GUARD = { deadlineMs: undefined, yieldEveryMs: 20, now: () => performance.now(), timeoutMs: 0 };

/** ethereumjs appends "(vm hf=… -> block … -> tx …)" to validation errors; keep the reason. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cut = message.indexOf(' (vm hf=');
  return cut > 0 ? message.slice(0, cut) : message;
}

async function guarded<T>(options: RunTransactionOptions, run: () => Promise<T>): Promise<T> {
  const guard = options.guard ?? DEFAULT_GUARD;
  installFastEipLookup(options.vm);
  const uninstall = installExecutionGuard(options.vm, guard, guard.timeoutMs);
  try {
    return await run();
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw new ServerError(reasonOf(error), { cause: error });
  } finally {
    uninstall();
  }
}

function runTx(options: RunTransactionOptions): Promise<RunTxResult> {
  return vmRunTx(options.vm, {
    tx: options.tx,
    block: options.block,
    skipNonce: options.skipNonce,
    skipBlockGasLimitValidation: true,
    skipHardForkValidation: true,
  });
}

/** Runs the transaction without recording (replaying the transactions before a traced one). */
export function runTransaction(options: RunTransactionOptions): Promise<RunTxResult> {
  return guarded(options, () => runTx(options));
}

/** Runs the transaction with a recorder for `needs` and returns its record. */
export function runRecordedTransaction(options: RunTransactionOptions, needs: RecordNeeds): Promise<ExecutionRecord> {
  return guarded(options, async () => {
    const recorder = attachRecorder(options.vm, needs);
    try {
      await recorder.start(options.tx, options.block);
      const undo = await options.prepare?.();
      const result = await runTx(options);
      await undo?.();
      return await recorder.finish(result);
    } finally {
      recorder.detach();
    }
  });
}
