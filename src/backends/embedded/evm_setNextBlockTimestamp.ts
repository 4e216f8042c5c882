// evm_setNextBlockTimestamp: the timestamp of the next mined block (not below the head's).
import type { evmSchema } from '../../rpc/schema/evm.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import type { MethodHandler } from './methodTable.js';

export function evm_setNextBlockTimestamp({ chain }: ChainMethodDeps): MethodHandler<(typeof evmSchema)['evm_setNextBlockTimestamp']> {
  return async ([timestamp]) => {
    await chain.setNextBlockTimestamp(timestamp);
    return null;
  };
}
