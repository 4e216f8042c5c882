// eth_getBlockTransactionCountByNumber: how many transactions a block holds, or null.
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_getBlockTransactionCountByNumber({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getBlockTransactionCountByNumber']> {
  return async ([blockId]) => {
    const block = await chain.resolveBlock(blockId);
    return block ? quantityToHex(block.transactions.length) : null;
  };
}
