// eth_gasPrice: next block's base fee plus the suggested tip (anvil's answer).
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_gasPrice({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_gasPrice']> {
  return async () => quantityToHex(chain.nextBaseFee() + (await chain.suggestedPriorityFee()));
}
