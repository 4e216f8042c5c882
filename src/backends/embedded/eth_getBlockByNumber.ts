// eth_getBlockByNumber: a canonical block by number or tag, or null when there is none.
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { blockToRpc } from './rpcBlock.js';

export function eth_getBlockByNumber({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getBlockByNumber']> {
  return async ([blockId, full]) => {
    const block = await chain.resolveBlock(blockId);
    if (!block) return null;
    return blockToRpc(block, full === true, full ? await chain.getReceipts(block.hash()) : []);
  };
}
