// eth_maxPriorityFeePerGas: the suggested tip, 1 gwei (anvil's answer).
import { DEFAULT_PRIORITY_FEE_WEI } from '../../engine/chain/devChain.js';
import { quantityToHex } from '../hex.js';
import type { ethSchema } from '../schema/eth.js';
import type { MethodHandler } from './methodTable.js';

export function eth_maxPriorityFeePerGas(): MethodHandler<(typeof ethSchema)['eth_maxPriorityFeePerGas']> {
  return () => quantityToHex(DEFAULT_PRIORITY_FEE_WEI);
}
