// eth_createAccessList: the addresses and slots a call touches (sender, recipient and precompiles
// left out, as geth does) and the gas it uses with that list; a failing call answers its error
// beside the list. Runs on this thread under the call timeout.
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';
import { transactionRequestFromRpc } from './rpcRequest.js';

export function eth_createAccessList({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_createAccessList']> {
  return async ([request, block], ctx) => {
    const created = await chain.createAccessList(transactionRequestFromRpc(request), await requireBlock(chain, block), ctx);
    return {
      accessList: created.accessList.map((e) => ({ address: bytesToHex(e.address), storageKeys: e.storageKeys.map(bytesToHex) })),
      gasUsed: quantityToHex(created.gasUsed),
      ...(created.error ? { error: created.error } : {}),
    };
  };
}
