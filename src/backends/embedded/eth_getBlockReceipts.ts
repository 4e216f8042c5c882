// eth_getBlockReceipts: every receipt of a block, or null for an unknown block (geth).
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { receiptToRpc } from './rpcReceipt.js';

export function eth_getBlockReceipts({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getBlockReceipts']> {
  return async ([blockId]) => {
    const block = await chain.resolveBlock(blockId);
    if (!block) return null;
    return (await chain.getReceipts(block.hash())).map((r) => receiptToRpc(r, block));
  };
}
