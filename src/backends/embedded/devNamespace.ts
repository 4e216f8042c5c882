// The dev-control namespace of the embedded chain: evm_* plus anvil_* setters, impersonation, mining
// mode, time and node info, with their hardhat_* aliases.
import { evmSchema } from '../../rpc/schema/evm.js';
import { anvil_mine } from './anvil_mine.js';
import { anvil_setBalance } from './anvil_setBalance.js';
import { anvil_setCode } from './anvil_setCode.js';
import { anvil_setNonce } from './anvil_setNonce.js';
import { anvil_setStorageAt } from './anvil_setStorageAt.js';
import type { ChainMethodDeps } from './chainMethodDeps.js';
import { createDevSettingHandlers } from './devSettingMethods.js';
import { evm_mine } from './evm_mine.js';
import { evm_revert } from './evm_revert.js';
import { evm_setNextBlockTimestamp } from './evm_setNextBlockTimestamp.js';
import { evm_snapshot } from './evm_snapshot.js';
import { type Namespace, defineNamespace } from './methodTable.js';
import { chainReadGate } from './chainReadGate.js';

export function createDevNamespace(deps: ChainMethodDeps): Namespace<typeof evmSchema> {
  const setBalance = anvil_setBalance(deps);
  const setCode = anvil_setCode(deps);
  const setNonce = anvil_setNonce(deps);
  const setStorageAt = anvil_setStorageAt(deps);
  const mine = anvil_mine(deps);
  return {
    ...defineNamespace(evmSchema, {
      evm_mine: evm_mine(deps),
      evm_snapshot: evm_snapshot(deps),
      evm_revert: evm_revert(deps),
      evm_setNextBlockTimestamp: evm_setNextBlockTimestamp(deps),
      anvil_mine: mine,
      hardhat_mine: mine,
      anvil_setBalance: setBalance,
      hardhat_setBalance: setBalance,
      anvil_setCode: setCode,
      hardhat_setCode: setCode,
      anvil_setNonce: setNonce,
      hardhat_setNonce: setNonce,
      anvil_setStorageAt: setStorageAt,
      hardhat_setStorageAt: setStorageAt,
      ...createDevSettingHandlers(deps),
    }),
    gate: chainReadGate(deps.chain),
  };
}
