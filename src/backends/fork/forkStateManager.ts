// The ethereumjs state manager of fork execution: ethereumjs's in-memory SimpleStateManager
// (checkpoints as a stack of maps) whose misses are read from an upstream block's state
// (forkState.ts) instead of reading as empty. A read that fails rejects, and the EVM passes the
// rejection out of the execution (it is not an EVM error), so the request fails rather than run on
// zeros. It has no state root: execution on it never needs one past Byzantium.
import { SimpleStateManager } from '@ethereumjs/statemanager';
import { Account, type Address, bytesToHex } from '@ethereumjs/util';
import type { Common } from '@ethereumjs/common';
import type { Hex } from '../../rpc/hex.js';
import type { ForkStateReader } from './forkState.js';

export class ForkStateManager extends SimpleStateManager {
  /** Accounts whose storage was cleared (selfdestruct, creation), per checkpoint level: their slots no longer read upstream. */
  private clearedStack: Set<string>[] = [new Set()];

  constructor(
    private reader: ForkStateReader,
    common: Common,
  ) {
    super({ common });
  }

  /**
   * Starts over on another state, for a pooled VM's next run: nothing read or written before is
   * kept. Only between runs (no checkpoint open).
   */
  reuse(reader: ForkStateReader): void {
    this.reader = reader;
    this.accountStack = [new Map()];
    this.codeStack = [new Map()];
    this.storageStack = [new Map()];
    this.clearedStack = [new Set()];
  }

  private cleared(): Set<string> {
    return this.clearedStack[this.clearedStack.length - 1]!;
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const key = address.toString();
    const accounts = this.topAccountStack();
    let account: Account | undefined;
    if (accounts.has(key)) account = accounts.get(key);
    else {
      const loaded = await this.reader.account(key as Hex);
      // Another read of the same account may have filled the level while this one waited.
      if (accounts.has(key)) account = accounts.get(key);
      else {
        account = loaded && new Account(loaded.nonce, loaded.balance, undefined, loaded.codeHash);
        accounts.set(key, account);
        if (loaded && loaded.code.length > 0) this.topCodeStack().set(key, loaded.code);
      }
    }
    // A copy, as ethereumjs's trie-backed managers return: callers change what they get before putting it.
    return account && new Account(account.nonce, account.balance, account.storageRoot, account.codeHash);
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const key = address.toString();
    const code = this.topCodeStack().get(key);
    if (code !== undefined) return code;
    // Code arrives with its account: an account read here (or put here) without code has none.
    if (!this.topAccountStack().has(key)) await this.getAccount(address);
    return this.topCodeStack().get(key) ?? new Uint8Array(0);
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const account = address.toString();
    const slotKey = `${account}_${bytesToHex(key)}`;
    const storage = this.topStorageStack();
    const value = storage.get(slotKey);
    if (value !== undefined) return value;
    if (this.cleared().has(account)) return new Uint8Array(0);
    const loaded = await this.reader.storage(account as Hex, bytesToHex(key) as Hex);
    const now = this.topStorageStack();
    if (!now.has(slotKey) && !this.cleared().has(account)) now.set(slotKey, loaded);
    return now.get(slotKey) ?? new Uint8Array(0);
  }

  /** A deleted account's slots go with it (as in the trie-backed managers), so they are not read upstream again. */
  override async deleteAccount(address: Address): Promise<void> {
    await super.deleteAccount(address);
    await this.clearStorage(address);
  }

  override async clearStorage(address: Address): Promise<void> {
    await super.clearStorage(address);
    this.cleared().add(address.toString());
  }

  override async checkpoint(): Promise<void> {
    await super.checkpoint();
    this.clearedStack.push(new Set(this.cleared()));
  }

  override async commit(): Promise<void> {
    await super.commit();
    this.clearedStack.splice(-2, 1);
  }

  override async revert(): Promise<void> {
    await super.revert();
    this.clearedStack.pop();
  }

  override shallowCopy(): SimpleStateManager {
    throw new TypeError('a fork state manager is not copied: each execution builds its own');
  }
}
