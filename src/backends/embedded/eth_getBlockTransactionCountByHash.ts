// eth_getBlockTransactionCountByHash: how many transactions a block holds, or null.
import { hexToBytes, quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_getBlockTransactionCountByHash({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getBlockTransactionCountByHash']> {
  return async ([hash]) => {
    const block = await chain.getBlockByHash(hexToBytes(hash));
    return block ? quantityToHex(block.transactions.length) : null;
  };
}
