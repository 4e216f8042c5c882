// evm_revert: rewinds to a snapshot (true), or answers false for an unknown or used id.
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function evm_revert({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['evm_revert']> {
  return ([id]) => chain.revert(id);
}
