// anvil_setBalance / hardhat_setBalance: sets an account's balance in the working state.
import { hexToBytes } from '../../rpc/hex.js';
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function anvil_setBalance({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['anvil_setBalance']> {
  return async ([address, balance]) => {
    await chain.setBalance(hexToBytes(address), balance);
    return null;
  };
}
