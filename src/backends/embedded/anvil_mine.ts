// anvil_mine / hardhat_mine: mines `blocks` blocks (default 1), `intervalSec` apart if given.
import { InvalidParamsError } from '../../rpc/errors.js';
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

/** Most blocks one call may mine, so a typo cannot stall the chain for hours. */
const MAX_BLOCKS = 10_000n;

export function anvil_mine({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['anvil_mine']> {
  return async ([blocks, intervalSec]) => {
    const count = blocks ?? 1n;
    if (count > MAX_BLOCKS) throw new InvalidParamsError(`anvil_mine: at most ${MAX_BLOCKS} blocks per call, got ${count}`);
    for (let i = 0n; i < count; i++) {
      const base = (await chain.getBlockByNumber(chain.headNumber()))!.header.timestamp;
      await chain.mine({ timestampSec: intervalSec !== undefined && i > 0n ? base + intervalSec : undefined });
    }
    return null;
  };
}
