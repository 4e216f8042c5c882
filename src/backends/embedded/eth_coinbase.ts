// eth_coinbase: the fee recipient of mined blocks.
import { bytesToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_coinbase({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_coinbase']> {
  return () => bytesToHex(chain.coinbase());
}
