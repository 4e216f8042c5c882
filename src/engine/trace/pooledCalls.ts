// eth_call and eth_estimateGas as jobs of the trace pool (traceJob.ts kinds `ethCall` and
// `estimateGas`), so a looping call never holds the main thread: same gas cap, a time budget per
// call (a whole estimate's search within it), cancellation, and the pool's per-key fair queue.
// Without a pool the chain runs them in-process under the same guard (DevChain.call/estimateGas).
import type { Block } from '@ethereumjs/block';
import { hexToBytes } from '../../rpc/hex.js';
import type { StateOverrides } from '../chain/stateOverrides.js';
import type { TransactionRequest } from '../chain/transactionRequest.js';
import type { JobScope, TraceJob } from './traceJob.js';

/** Runs eth_call / eth_estimateGas requests (the DevChain itself is one, in-process). */
export interface CallRunner {
  call(request: TransactionRequest, block: Block, overrides?: StateOverrides, scope?: JobScope): Promise<Uint8Array>;
  estimateGas(request: TransactionRequest, block: Block, overrides?: StateOverrides, scope?: JobScope): Promise<bigint>;
}

export interface PooledCallsOptions {
  /** State root calls at `block` read (the head's working root after dev setters). */
  stateRootAt(block: Block): Uint8Array;
  /** The pool's `run`. */
  runJob(job: TraceJob, scope?: JobScope): Promise<string[]>;
  /** Time budget of one call or one whole estimate, ms (`--call-timeout-ms`). */
  timeoutMs: number;
}

export function createPooledCalls(options: PooledCallsOptions): CallRunner {
  const job = (kind: 'ethCall' | 'estimateGas', request: TransactionRequest, block: Block, overrides: StateOverrides | undefined): TraceJob => ({
    kind,
    blockHash: block.hash(),
    stateRoot: options.stateRootAt(block),
    request,
    overrides,
    timeoutMs: options.timeoutMs,
  });
  return {
    async call(request, block, overrides, scope) {
      const [output] = await options.runJob(job('ethCall', request, block, overrides), scope);
      return hexToBytes(output!);
    },
    async estimateGas(request, block, overrides, scope) {
      const [gas] = await options.runJob(job('estimateGas', request, block, overrides), scope);
      return BigInt(gas!);
    },
  };
}
