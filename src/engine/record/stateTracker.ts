// Tracks the accounts and storage slots a transaction touches, by geth's prestate rules, with
// their values at first touch and after the transaction. A value is read the first time an
// address or slot is looked up; every state change in the EVM is preceded by such a lookup
// (CALL targets, CREATE addresses, SELFDESTRUCT beneficiaries, SSTORE slots, the tx's sender,
// recipient and coinbase), so first-touch values equal the values before the transaction.
import type { StateManagerInterface } from '@ethereumjs/common';
import { Address, bytesToBigInt, bytesToHex, setLengthLeft, bigIntToBytes } from '@ethereumjs/util';
import type { AccountState, TouchedAccount } from './types.js';

const DELEGATION_PREFIX = [0xef, 0x01, 0x00];

export interface StateTracker {
  accounts: Map<string, TouchedAccount>;
  /** Looks up an account (and, when `followDelegation`, its current EIP-7702 delegation target). */
  lookupAccount(address: Address, followDelegation?: boolean): Promise<void>;
  /** Looks up a slot; for an SSTORE pass the value being written to track whether it changes. */
  lookupStorage(address: Address, key: bigint, written?: bigint): Promise<void>;
  markCreated(address: Address): void;

  /** Reads the post-transaction state of everything touched. */
  finish(): Promise<void>;
}

/** The 32-byte lowercase hex key slots are stored under. */
export function slotKey(key: bigint): string {
  return `0x${key.toString(16).padStart(64, '0')}`;
}

async function readAccount(sm: StateManagerInterface, address: Address): Promise<AccountState | undefined> {
  const account = await sm.getAccount(address);
  if (!account) return undefined;
  const code = await sm.getCode(address);
  return { balance: account.balance, nonce: account.nonce, code, codeHash: Uint8Array.from(account.codeHash) };
}

function delegationTarget(code: Uint8Array | undefined): Address | undefined {
  if (!code || code.length !== 23) return undefined;
  for (let i = 0; i < 3; i++) if (code[i] !== DELEGATION_PREFIX[i]) return undefined;
  return new Address(code.slice(3));
}

export function createStateTracker(stateManager: StateManagerInterface): StateTracker {
  const accounts = new Map<string, TouchedAccount>();

  async function ensureAccount(address: Address): Promise<TouchedAccount> {
    const key = bytesToHex(address.bytes);
    let entry = accounts.get(key);
    if (!entry) {
      entry = {
        address: address.bytes,
        pre: undefined,
        post: undefined,
        storage: new Map(),
        created: false,
      };
      accounts.set(key, entry);
      entry.pre = await readAccount(stateManager, address);
    }
    return entry;
  }

  return {
    accounts,
    async lookupAccount(address, followDelegation = false) {
      await ensureAccount(address);
      if (followDelegation) {
        // The delegation in force now (authorizations of this very transaction included).
        const target = delegationTarget(await stateManager.getCode(address));
        if (target) await ensureAccount(target);
      }
    },
    async lookupStorage(address, key, written) {
      const entry = await ensureAccount(address);
      const slot = slotKey(key);
      let record = entry.storage.get(slot);
      const needsRead = !record || written !== undefined;
      const current = needsRead ? bytesToBigInt(await stateManager.getStorage(address, setLengthLeft(bigIntToBytes(key), 32))) : 0n;
      if (!record) {
        record = { pre: current, post: undefined, dirty: false };
        entry.storage.set(slot, record);
      }
      if (written !== undefined && written !== current) record.dirty = true;
    },
    markCreated(address) {
      const entry = accounts.get(bytesToHex(address.bytes));
      if (entry) entry.created = true;
    },

    async finish() {
      for (const entry of accounts.values()) {
        const address = new Address(entry.address);
        entry.post = await readAccount(stateManager, address);
        for (const [slot, record] of entry.storage) {
          record.post = entry.post
            ? bytesToBigInt(await stateManager.getStorage(address, setLengthLeft(bigIntToBytes(BigInt(slot)), 32)))
            : 0n;
        }
      }
    },
  };
}
