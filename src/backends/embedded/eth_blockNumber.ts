// eth_blockNumber: the canonical head's number.
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_blockNumber({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_blockNumber']> {
  return () => quantityToHex(chain.headNumber());
}
