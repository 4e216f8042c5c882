// eth_call: executes a call on the state at a block (with optional state overrides) without
// mining it, on the trace worker pool when there is one, within the call timeout. A revert is
// error code 3 with the revert data (geth behaviour).
import { bytesToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';
import { stateOverridesFromRpc, transactionRequestFromRpc } from './rpcRequest.js';

export function eth_call({ chain, calls = chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_call']> {
  return async ([request, block, overrides], ctx) => {
    const output = await calls.call(transactionRequestFromRpc(request), await requireBlock(chain, block), stateOverridesFromRpc(overrides), ctx);
    return bytesToHex(output);
  };
}
