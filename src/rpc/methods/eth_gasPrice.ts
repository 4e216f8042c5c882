// eth_gasPrice: next block's base fee plus the suggested 1 gwei tip (anvil's answer).
import { DEFAULT_PRIORITY_FEE_WEI } from '../../engine/chain/devChain.js';
import { quantityToHex } from '../hex.js';
import type { ethSchema } from '../schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_gasPrice({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_gasPrice']> {
  return () => quantityToHex(chain.nextBaseFee() + DEFAULT_PRIORITY_FEE_WEI);
}
