// Builds the dev chain's genesis: the funded dev accounts plus the two contracts anvil predeploys
// (the EIP-2935 block-hash history contract from Prague on, and the deterministic CREATE2
// deployer), so the same transactions see the same state and use the same gas as on anvil.
import { type Block, createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, createAddressFromString, hexToBytes } from '@ethereumjs/util';
import type { DevChainConfig } from './chainConfig.js';
import type { DevAccount } from './devAccounts.js';

/** EIP-2935 history storage contract (bytecode from the EIP), active from Prague. */
export const HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935';
const HISTORY_STORAGE_CODE =
  '0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500';

/** The keyless deterministic-deployment proxy used by CREATE2 tooling (foundry, hardhat). */
export const CREATE2_DEPLOYER_ADDRESS = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
const CREATE2_DEPLOYER_CODE =
  '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3';

/** Writes the genesis accounts into `state` (opened on the empty root) and returns the state root. */
export async function writeGenesisState(state: MerkleStateManager, config: DevChainConfig, accounts: readonly DevAccount[]): Promise<Uint8Array> {
  for (const account of accounts) {
    await state.putAccount(account.address, new Account(0n, config.accountBalanceWei));
  }
  await state.putCode(createAddressFromString(CREATE2_DEPLOYER_ADDRESS), hexToBytes(CREATE2_DEPLOYER_CODE));
  if (state.common.isActivatedEIP(2935)) {
    await state.putCode(createAddressFromString(HISTORY_STORAGE_ADDRESS), hexToBytes(HISTORY_STORAGE_CODE));
  }
  return state.getStateRoot();
}

/** The genesis block on `stateRoot`, shaped like anvil's (zero coinbase, difficulty and mix hash). */
export function createGenesisBlock(common: Common, config: DevChainConfig, stateRoot: Uint8Array, timestampSec: bigint): Block {
  return createBlock(
    {
      header: {
        number: 0n,
        gasLimit: config.gasLimit,
        timestamp: timestampSec,
        baseFeePerGas: config.baseFeeWei,
        stateRoot,
        difficulty: 0n,
      },
      withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
    },
    { common },
  );
}
