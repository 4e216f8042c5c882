// evm_mine: mines one block (with pooled transactions, if any) and answers "0x0" like anvil.
// Takes an optional timestamp or anvil's `{timestamp, blocks}`.
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function evm_mine({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['evm_mine']> {
  return async ([options]) => {
    await chain.mineBlocks(options?.blocks ?? 1n, { firstTimestampSec: options?.timestamp });
    return '0x0';
  };
}
