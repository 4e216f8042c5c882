// eth_getCode: an account's code at a block (`0x` for none).
import { Address } from '@ethereumjs/util';
import { bytesToHex, hexToBytes } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';

export function eth_getCode({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getCode']> {
  return async ([address, block]) => {
    const state = await chain.stateAt(await requireBlock(chain, block));
    return bytesToHex(await state.getCode(new Address(hexToBytes(address))));
  };
}
