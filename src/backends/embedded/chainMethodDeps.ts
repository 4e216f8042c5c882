// What the embedded chain's handlers (eth_*, evm_*/anvil_*) depend on.
import type { DevChain } from '../../engine/chain/devChain.js';
import type { ChainFilters } from './chainFilters.js';
import type { CallRunner } from '../../engine/trace/pooledCalls.js';

export interface ChainMethodDeps {
  chain: DevChain;
  /** Where eth_call / eth_estimateGas run (the trace worker pool); default the chain, in-process. */
  calls?: CallRunner;
  /** Polled filters; default a registry of its own fed by `chain` (created with the eth namespace). */
  filters?: ChainFilters;
}
