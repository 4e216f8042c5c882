// eth_blobBaseFee: the blob base fee of the next block (EIP-4844), from the head's excess blob gas.
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function eth_blobBaseFee({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_blobBaseFee']> {
  return async () => {
    const head = await chain.resolveBlock({ kind: 'tag', tag: 'latest' });
    return quantityToHex(head!.header.calcNextBlobGasPrice(chain.common));
  };
}
