// eth_getTransactionByBlockHashAndIndex: a transaction by block hash and position, or null.
import { hexToBytes } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { blockTransactionToRpc } from './transactionLookup.js';

export function eth_getTransactionByBlockHashAndIndex({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getTransactionByBlockHashAndIndex']> {
  return async ([blockHash, index]) => {
    const block = await chain.getBlockByHash(hexToBytes(blockHash));
    return block && index < BigInt(block.transactions.length) ? blockTransactionToRpc(chain, block, Number(index)) : null;
  };
}
