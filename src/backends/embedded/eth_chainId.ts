// eth_chainId: the dev chain's id (31337 by default).
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_chainId({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_chainId']> {
  return () => quantityToHex(chain.chainId);
}
