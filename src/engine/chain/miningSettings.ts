// The dev chain's mutable mining parameters (anvil's evm_setBlockGasLimit, anvil_setCoinbase,
// anvil_setNextBlockBaseFeePerGas, anvil_setBlockTimestampInterval, automine) and its impersonated
// senders. They shape blocks yet to be mined only: a mined block's header records what applied,
// so replays never read these. Kept in memory, like anvil's: a restart starts from the config.
import { hexToBytes } from '@ethereumjs/util';
import { bytesToUnprefixedHex } from '@ethereumjs/util';
import type { DevChainConfig } from './chainConfig.js';

export interface MiningSettings {
  /** Gas limit of the next blocks. */
  gasLimit: bigint;
  /** Fee recipient of the next blocks (20 bytes). */
  coinbase: Uint8Array;
  /** Base fee of the next block only; cleared once a block is mined. */
  nextBaseFeeWei: bigint | undefined;
  /** When set, each block's timestamp is its parent's plus this many seconds. */
  timestampIntervalSec: bigint | undefined;
  /** Mine each admitted transaction at once (else it waits in the pool for a mine or the interval). */
  automine: boolean;
  /** Interval mining period in seconds, 0 for none. */
  intervalSec: number;
  /** Lowercase unprefixed hex addresses eth_sendTransaction may send from without a key. */
  impersonated: Set<string>;
  /** anvil_autoImpersonateAccount: every address may send. */
  autoImpersonate: boolean;
}

export function createMiningSettings(config: DevChainConfig): MiningSettings {
  return {
    gasLimit: config.gasLimit,
    coinbase: hexToBytes(config.coinbase as `0x${string}`),
    nextBaseFeeWei: undefined,
    timestampIntervalSec: undefined,
    automine: config.blockTimeSec === 0,
    intervalSec: config.blockTimeSec,
    impersonated: new Set(),
    autoImpersonate: false,
  };
}

/** Whether `address` is impersonated (explicitly or by auto-impersonation). */
export function isImpersonated(settings: MiningSettings, address: Uint8Array): boolean {
  return settings.autoImpersonate || settings.impersonated.has(bytesToUnprefixedHex(address));
}
