// anvil_setStorageAt / hardhat_setStorageAt: sets one storage slot in the working state; answers
// true like anvil.
import { bigIntToWordHex, hexToBytes } from '../../rpc/hex.js';
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function anvil_setStorageAt({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['anvil_setStorageAt']> {
  return async ([address, slot, value]) => {
    await chain.setStorageAt(hexToBytes(address), hexToBytes(bigIntToWordHex(slot)), hexToBytes(bigIntToWordHex(value)));
    return true;
  };
}
