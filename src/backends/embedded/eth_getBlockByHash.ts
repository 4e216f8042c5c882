// eth_getBlockByHash: a canonical block by hash, or null when unknown.
import { hexToBytes } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { blockToRpc } from './rpcBlock.js';

export function eth_getBlockByHash({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getBlockByHash']> {
  return async ([hash, full]) => {
    const block = await chain.getBlockByHash(hexToBytes(hash));
    if (!block) return null;
    return blockToRpc(block, full === true, full ? await chain.getReceipts(block.hash()) : []);
  };
}
