// eth_maxPriorityFeePerGas: the suggested tip, as anvil computes it (smallest tip of the latest
// block, at least 1 gwei).
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_maxPriorityFeePerGas({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_maxPriorityFeePerGas']> {
  return async () => quantityToHex(await chain.suggestedPriorityFee());
}
