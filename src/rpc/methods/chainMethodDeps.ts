// What the embedded chain's handlers (eth_*, evm_*/anvil_*) depend on.
import type { DevChain } from '../../engine/chain/devChain.js';

export interface ChainMethodDeps {
  chain: DevChain;
}
