// eth_estimateGas: the smallest gas limit at which the request succeeds (binary search).
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';
import { stateOverridesFromRpc, transactionRequestFromRpc } from './rpcRequest.js';

export function eth_estimateGas({ chain, calls = chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_estimateGas']> {
  return async ([request, block, overrides], ctx) => {
    const gas = await calls.estimateGas(transactionRequestFromRpc(request), await requireBlock(chain, block), stateOverridesFromRpc(overrides), ctx);
    return quantityToHex(gas);
  };
}
