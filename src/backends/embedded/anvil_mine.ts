// anvil_mine / hardhat_mine: mines `blocks` blocks (default 1); with `intervalSec`, anvil's clock
// moves that far ahead before each block (the chain's mineBlocks, which never holds the loop).
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function anvil_mine({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['anvil_mine']> {
  return async ([blocks, intervalSec]) => {
    await chain.mineBlocks(blocks ?? 1n, { intervalSec });
    return null;
  };
}
