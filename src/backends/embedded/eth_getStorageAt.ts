// eth_getStorageAt: one storage slot of an account at a block, as a 32-byte word.
import { Address, setLengthLeft } from '@ethereumjs/util';
import { bigIntToWordHex, bytesToWordHex, hexToBytes } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';

export function eth_getStorageAt({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getStorageAt']> {
  return async ([address, slot, block]) => {
    const state = await chain.stateAt(await requireBlock(chain, block));
    const key = setLengthLeft(hexToBytes(bigIntToWordHex(slot)), 32);
    return bytesToWordHex(await state.getStorage(new Address(hexToBytes(address)), key));
  };
}
