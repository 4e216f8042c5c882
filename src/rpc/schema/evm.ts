// Runtime schemas of the dev-chain control methods: evm_* (mining, snapshots, time) and the
// anvil_* setters with their hardhat_* aliases.
import { z } from 'zod';
import { hexToBigInt } from '../hex.js';
import { defineMethod, optionalParam, param } from './defineMethod.js';
import { Address, Data, Hash32, Quantity, StorageSlot } from './primitives.js';

/** 0x-prefixed text whose digits are checked later (by whoever decodes it). */
const HexText = z.string({ error: 'expected a hex data string' }).refine((s) => s.startsWith('0x'), { error: 'expected 0x-prefixed hex data' });

const MAX_UINT64 = 2n ** 64n - 1n;

/** A quantity that fits a 64-bit header or account field (timestamps, nonces, counts). */
const Uint64 = Quantity.refine((v) => v <= MAX_UINT64, { error: 'must fit in 64 bits' });

/** Seconds as a hex quantity or a JSON number (anvil and hardhat take both), at most 64 bits. */
const Seconds = z.union([Uint64, z.number().int().nonnegative().transform(BigInt)], { error: 'expected a timestamp in seconds (hex or number)' });

/** A storage value: a 32-byte word, leading zeros allowed. */
const StorageWord = z
  .string({ error: 'expected a 32-byte hex storage value' })
  .regex(/^0x[0-9a-fA-F]{1,64}$/, { error: 'expected a hex storage value of at most 32 bytes' })
  .transform(hexToBigInt);

/** evm_mine's optional argument: a timestamp, or anvil's `{timestamp, blocks}` object. */
const MineOptions = z.union([
  Seconds.transform((timestamp) => ({ timestamp, blocks: undefined as bigint | undefined })),
  z.object({ timestamp: Seconds.optional(), blocks: Seconds.optional() }),
]);

const setBalance = defineMethod(param('address', Address), param('balance', Quantity));
const setCode = defineMethod(param('address', Address), param('code', Data));
const setNonce = defineMethod(param('address', Address), param('nonce', Uint64));
const setStorageAt = defineMethod(param('address', Address), param('slot', StorageSlot), param('value', StorageWord));
const impersonate = defineMethod(param('address', Address));
const flag = defineMethod(param('enabled', z.boolean({ error: 'expected true or false' })));
/** Seconds as a JSON number or hex quantity, for evm_increaseTime (anvil takes both; negative refused). */
const seconds = defineMethod(param('seconds', Seconds));
const setIntervalMining = defineMethod(param('seconds', Seconds));
/** anvil_reset's optional argument; only the no-fork form is served. */
const ResetOptions = z.object({ forking: z.unknown().optional() }, { error: 'expected a reset options object' }).loose();
const reset = defineMethod(optionalParam('options', ResetOptions));
const mineBlocks = defineMethod(optionalParam('blocks', Seconds), optionalParam('intervalSec', Seconds));

export const evmSchema = {
  evm_mine: defineMethod(optionalParam('options', MineOptions)),
  evm_snapshot: defineMethod(),
  evm_revert: defineMethod(param('snapshotId', Quantity)),
  evm_setNextBlockTimestamp: defineMethod(param('timestamp', Seconds)),
  anvil_mine: mineBlocks,
  hardhat_mine: mineBlocks,
  anvil_setBalance: setBalance,
  hardhat_setBalance: setBalance,
  anvil_setCode: setCode,
  hardhat_setCode: setCode,
  anvil_setNonce: setNonce,
  hardhat_setNonce: setNonce,
  anvil_setStorageAt: setStorageAt,
  hardhat_setStorageAt: setStorageAt,
  anvil_impersonateAccount: impersonate,
  hardhat_impersonateAccount: impersonate,
  anvil_stopImpersonatingAccount: impersonate,
  hardhat_stopImpersonatingAccount: impersonate,
  anvil_autoImpersonateAccount: flag,
  evm_increaseTime: seconds,
  anvil_increaseTime: seconds,
  evm_setAutomine: flag,
  anvil_setAutomine: flag,
  anvil_getAutomine: defineMethod(),
  hardhat_getAutomine: defineMethod(),
  evm_setIntervalMining: setIntervalMining,
  anvil_setIntervalMining: setIntervalMining,
  anvil_setBlockTimestampInterval: seconds,
  anvil_removeBlockTimestampInterval: defineMethod(),
  evm_setBlockGasLimit: defineMethod(param('gasLimit', Uint64)),
  anvil_setNextBlockBaseFeePerGas: defineMethod(param('baseFee', Quantity)),
  hardhat_setNextBlockBaseFeePerGas: defineMethod(param('baseFee', Quantity)),
  anvil_setCoinbase: defineMethod(param('address', Address)),
  hardhat_setCoinbase: defineMethod(param('address', Address)),
  anvil_dropTransaction: defineMethod(param('hash', Hash32)),
  hardhat_dropTransaction: defineMethod(param('hash', Hash32)),
  anvil_dumpState: defineMethod(optionalParam('preserveHistoricalStates', z.boolean({ error: 'expected true or false' }))),
  // Kept as text: a large state's hex is checked and decoded by the state reader's worker thread
  // (engine/chain/stateDumpParsing.ts), not here on the main thread.
  anvil_loadState: defineMethod(param('state', HexText)),
  anvil_reset: reset,
  hardhat_reset: reset,
  anvil_nodeInfo: defineMethod(),
  anvil_metadata: defineMethod(),
  hardhat_metadata: defineMethod(),
} as const;
