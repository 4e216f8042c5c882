// eth_feeHistory: base fees, gas-used ratios and reward percentiles of recent blocks.
import { quantityToHex } from '../../rpc/hex.js';
import type { ethSchema } from '../../rpc/schema/eth.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';
import { requireBlock } from './requireBlock.js';

export function eth_feeHistory({ chain }: ChainMethodDeps): MethodHandler<(typeof ethSchema)['eth_feeHistory']> {
  return async ([blockCount, newestBlock, percentiles]) => {
    const history = await chain.feeHistory(blockCount, await requireBlock(chain, newestBlock), percentiles);
    return {
      oldestBlock: quantityToHex(history.oldestBlock),
      baseFeePerGas: history.baseFeePerGas.map(quantityToHex),
      gasUsedRatio: history.gasUsedRatio,
      baseFeePerBlobGas: history.baseFeePerBlobGas.map(quantityToHex),
      blobGasUsedRatio: history.blobGasUsedRatio,
      ...(history.reward ? { reward: history.reward.map((r) => r.map(quantityToHex)) } : {}),
    };
  };
}
