// eth_getBalance: an account's balance at a block (wei).
import { Address } from '@ethereumjs/util';
import { hexToBytes, quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';

export function eth_getBalance({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getBalance']> {
  return async ([address, block]) => {
    const state = await chain.stateAt(await requireBlock(chain, block));
    const account = await state.getAccount(new Address(hexToBytes(address)));
    return quantityToHex(account?.balance ?? 0n);
  };
}
