// anvil_setNonce / hardhat_setNonce: sets an account's nonce in the working state.
import { hexToBytes } from '../../rpc/hex.js';
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function anvil_setNonce({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['anvil_setNonce']> {
  return async ([address, nonce]) => {
    await chain.setNonce(hexToBytes(address), nonce);
    return null;
  };
}
