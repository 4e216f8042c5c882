// eth_getTransactionReceipt: the receipt of a mined transaction, or null (unknown or pooled).
import { hexToBytes } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { receiptToRpc } from './rpcReceipt.js';

export function eth_getTransactionReceipt({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_getTransactionReceipt']> {
  return async ([hash]) => {
    const found = await chain.getTransaction(hexToBytes(hash));
    if (!found) return null;
    const receipt = (await chain.getReceipts(found.block.hash()))[found.index];
    return receipt ? receiptToRpc(receipt, found.block) : null;
  };
}
