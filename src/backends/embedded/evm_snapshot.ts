// evm_snapshot: records the chain state; the id is for evm_revert.
import { quantityToHex } from '../../rpc/hex.js';
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function evm_snapshot({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['evm_snapshot']> {
  return async () => quantityToHex(await chain.snapshot());
}
