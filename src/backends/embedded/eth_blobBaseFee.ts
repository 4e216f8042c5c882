// eth_blobBaseFee: the blob base fee of the next block (EIP-4844's fake exponential of the excess
// blob gas the next block will carry), with Cancun's or Prague's (EIP-7691) target and update fraction.
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

const MIN_BLOB_BASE_FEE = 1n;

/** EIP-4844's integer approximation of factor · e^(numerator / denominator). */
export function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let accumulator = factor * denominator;
  while (accumulator > 0n) {
    output += accumulator;
    accumulator = (accumulator * numerator) / (denominator * i);
    i += 1n;
  }
  return output / denominator;
}

export function eth_blobBaseFee({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_blobBaseFee']> {
  const prague = chain.common.isActivatedEIP(7691);
  const target = prague ? 786_432n : 393_216n;
  const fraction = prague ? 5_007_716n : 3_338_477n;
  return async () => {
    const head = (await chain.resolveBlock({ kind: 'tag', tag: 'latest' }))!.header;
    const sum = (head.excessBlobGas ?? 0n) + (head.blobGasUsed ?? 0n);
    const excess = sum > target ? sum - target : 0n;
    return quantityToHex(fakeExponential(MIN_BLOB_BASE_FEE, excess, fraction));
  };
}
