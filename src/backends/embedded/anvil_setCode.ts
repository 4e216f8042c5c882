// anvil_setCode / hardhat_setCode: sets an account's code in the working state.
import { hexToBytes } from '../../rpc/hex.js';
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function anvil_setCode({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['anvil_setCode']> {
  return async ([address, code]) => {
    await chain.setCode(hexToBytes(address), code);
    return null;
  };
}
