// eth_feeHistory: base fees, gas-used ratios, blob fee data and per-block priority-fee percentiles
// weighted by gas used, computed as geth does.
import type { Block } from '@ethereumjs/block';
import { InvalidParamsError } from '../../rpc/errors.js';
import { nextBaseFee } from './blockMiner.js';
import type { ChainCore } from './chainCore.js';

export interface FeeHistory {
  oldestBlock: bigint;
  /** One per block plus the block after the newest. */
  baseFeePerGas: bigint[];
  gasUsedRatio: number[];
  baseFeePerBlobGas: bigint[];
  blobGasUsedRatio: number[];
  /** Present when percentiles were asked for: per block, one tip per percentile. */
  reward?: bigint[][];
}

/** Most blocks one request may cover (geth's default). */
export const MAX_FEE_HISTORY_BLOCKS = 1024n;

async function blockRewards(core: ChainCore, block: Block, percentiles: readonly number[]): Promise<bigint[]> {
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const receipts = await core.getReceipts(block.hash());
  if (receipts.length === 0) return percentiles.map(() => 0n);
  const sorted = receipts.map((r) => ({ tip: r.effectiveGasPrice - baseFee, gas: r.gasUsed })).sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
  const total = block.header.gasUsed;
  const out: bigint[] = [];
  let index = 0;
  let sum = sorted[0]!.gas;
  for (const p of percentiles) {
    const threshold = (Number(total) * p) / 100;
    while (Number(sum) < threshold && index < sorted.length - 1) {
      index++;
      sum += sorted[index]!.gas;
    }
    out.push(sorted[index]!.tip);
  }
  return out;
}

function blobFee(core: ChainCore, block: Block): bigint {
  return core.common.isActivatedEIP(4844) ? block.header.getBlobGasPrice() : 0n;
}

/** Fee history of `blockCount` blocks ending at `newest`. */
export async function computeFeeHistory(core: ChainCore, blockCount: bigint, newest: Block, percentiles?: readonly number[]): Promise<FeeHistory> {
  if (percentiles) {
    percentiles.forEach((p, i) => {
      if (!(p >= 0 && p <= 100)) throw new InvalidParamsError(`eth_feeHistory: reward percentile ${p} is not between 0 and 100`);
      if (i > 0 && p < percentiles[i - 1]!) throw new InvalidParamsError('eth_feeHistory: reward percentiles must be in ascending order');
    });
  }
  const count = blockCount > MAX_FEE_HISTORY_BLOCKS ? MAX_FEE_HISTORY_BLOCKS : blockCount;
  const newestNumber = newest.header.number;
  const oldest = newestNumber + 1n > count ? newestNumber + 1n - count : 0n;
  const history: FeeHistory = { oldestBlock: oldest, baseFeePerGas: [], gasUsedRatio: [], baseFeePerBlobGas: [], blobGasUsedRatio: [] };
  if (count === 0n) return { ...history, oldestBlock: 0n };
  if (percentiles?.length) history.reward = [];
  // Blocks carry a Common with the block parameters (blob schedule) merged in; the chain's has none.
  const maxBlobGas = newest.common.isActivatedEIP(4844) ? newest.common.getBlobGasSchedule().maxBlobGasPerBlock : 0n;
  for (let n = oldest; n <= newestNumber; n++) {
    const block = (await core.getBlockByNumber(n))!;
    history.baseFeePerGas.push(block.header.baseFeePerGas ?? 0n);
    history.gasUsedRatio.push(Number(block.header.gasUsed) / Number(block.header.gasLimit));
    history.baseFeePerBlobGas.push(blobFee(core, block));
    history.blobGasUsedRatio.push(maxBlobGas > 0n ? Number(block.header.blobGasUsed ?? 0n) / Number(maxBlobGas) : 0);
    if (history.reward) history.reward.push(await blockRewards(core, block, percentiles!));
  }
  history.baseFeePerGas.push(nextBaseFee(newest, core.config.baseFeeWei));
  history.baseFeePerBlobGas.push(core.common.isActivatedEIP(4844) ? newest.header.calcNextBlobGasPrice(newest.common) : 0n);
  return history;
}
