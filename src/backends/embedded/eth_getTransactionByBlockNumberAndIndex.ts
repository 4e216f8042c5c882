// eth_getTransactionByBlockNumberAndIndex: a transaction by block and position, or null.
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { blockTransactionToRpc } from './transactionLookup.js';

export function eth_getTransactionByBlockNumberAndIndex({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getTransactionByBlockNumberAndIndex']> {
  return async ([blockId, index]) => {
    const block = await chain.resolveBlock(blockId);
    return block && index < BigInt(block.transactions.length) ? blockTransactionToRpc(chain, block, Number(index)) : null;
  };
}
