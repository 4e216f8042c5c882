// Applies eth_call / eth_estimateGas state overrides (geth's `stateOverride` object) to a
// throw-away state manager before the call runs.
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Account, Address, setLengthLeft, unpadBytes } from '@ethereumjs/util';
import { InvalidParamsError } from '../../rpc/errors.js';

export interface AccountOverride {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  /** Replaces the whole storage: slots not listed read as zero. */
  state?: Map<bigint, bigint>;
  /** Changes only the listed slots. */
  stateDiff?: Map<bigint, bigint>;
}

/** Address (20 bytes) → override. */
export type StateOverrides = Map<string, AccountOverride>;

function slotBytes(value: bigint): Uint8Array {
  return setLengthLeft(Uint8Array.from(Buffer.from(value.toString(16).padStart(64, '0'), 'hex')), 32);
}

/** Writes the overrides into `state` (an overlay). */
export async function applyStateOverrides(state: MerkleStateManager, overrides: StateOverrides): Promise<void> {
  for (const [addressHex, override] of overrides) {
    const address = new Address(Buffer.from(addressHex.slice(2), 'hex'));
    if (override.state && override.stateDiff) {
      throw new InvalidParamsError(`stateOverride: account ${addressHex} has both 'state' and 'stateDiff'`);
    }
    const account = (await state.getAccount(address)) ?? new Account();
    if (override.balance !== undefined) account.balance = override.balance;
    if (override.nonce !== undefined) account.nonce = override.nonce;
    await state.putAccount(address, account);
    if (override.code !== undefined) await state.putCode(address, override.code);
    if (override.state) await state.clearStorage(address);
    for (const [slot, value] of override.state ?? override.stateDiff ?? []) {
      await state.putStorage(address, slotBytes(slot), unpadBytes(slotBytes(value)));
    }
  }
}
