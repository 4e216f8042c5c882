// eth_getTransactionCount: an account's nonce at a block; `pending` also counts transactions
// waiting in the pool (interval mining), so wallets can send several before the next block.
import { Address } from '@ethereumjs/util';
import { hexToBytes, quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';

export function eth_getTransactionCount({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getTransactionCount']> {
  return async ([address, block]) => {
    const bytes = hexToBytes(address);
    if (block?.kind === 'tag' && block.tag === 'pending') return quantityToHex(await chain.pendingNonce(bytes));
    const state = await chain.stateAt(await requireBlock(chain, block));
    return quantityToHex((await state.getAccount(new Address(bytes)))?.nonce ?? 0n);
  };
}
