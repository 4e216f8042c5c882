// The interpreter's synchronous view of the state: accounts, code and storage over a read-only
// base (state prefetched from ethereumjs), with one undo journal for checkpoints and reverts, the
// EIP-2929 warm sets, EIP-1153 transient storage, logs, and the accounts created in this execution
// (EIP-6780). Nothing here awaits: the opcodes that read state most (SLOAD, SSTORE, BALANCE, the
// EXTCODE* family, the CALL family) ask first which base read they would miss (`storageMiss`,
// `accountMiss`) and hand it to the driver (fastCall.ts), which loads it and resumes the execution
// where it stopped; any other base read that is not in memory throws StateMiss, and the driver
// loads it and runs the execution again from the start.
import { keccak256 } from './keccak.js';

/** An account as the base state holds it. */
export interface BaseAccount {
  nonce: bigint;
  balance: bigint;
  codeHash: Uint8Array;
  /**
   * The account's storage root is the empty trie's. Only for the create-collision rule (as
   * ethereumjs): an overlay's unflushed writes do not show in the root, so slots are always read.
   */
  storageEmpty: boolean;
}

/** What the base must answer; each read throws StateMiss when its data is not in memory yet. */
export interface BaseState {
  /** undefined when the account does not exist. */
  account(address: bigint): BaseAccount | undefined;
  code(address: bigint): Uint8Array;
  storage(address: bigint, slot: bigint): bigint;
  /** The read of `kind` (of `slot`, for storage) is in memory: the method above would not throw. */
  holds(kind: MissKind, address: bigint, slot?: bigint): boolean;
}

export type MissKind = 'account' | 'code' | 'storage';

/**
 * A base read that has to be loaded asynchronously first. A control-flow signal that never leaves
 * the driver (fastCall.ts), so not an Error: capturing a stack trace for each of the several misses
 * of a traced call was 6.7% of its CPU time (docs/performance.md).
 */
export class StateMiss {
  constructor(
    readonly kind: MissKind,
    readonly address: bigint,
    readonly slot = 0n,
  ) {}
}

/** Something the core does not implement; the caller runs the request on ethereumjs instead. */
export class Unsupported extends Error {}

export const KECCAK_EMPTY = keccak256(new Uint8Array(0));
const EMPTY = new Uint8Array(0);

export interface Log {
  address: bigint;
  topics: bigint[];
  data: Uint8Array;
}

/** An account in the execution's view. */
export class Account {
  code: Uint8Array | undefined;
  /** Slots written in this execution (current values). */
  readonly storage = new Map<bigint, bigint>();
  /** Values at the start of the execution, as read from the base (EIP-2200's "original"). */
  readonly original = new Map<bigint, bigint>();
  readonly warmSlots = new Set<bigint>();
  transient: Map<bigint, bigint> | undefined;

  constructor(
    readonly address: bigint,
    public nonce: bigint,
    public balance: bigint,
    public codeHash: Uint8Array | undefined,
    /** The base holds no storage for this account (empty trie, or created in this execution). */
    public fresh: boolean,
    /** Existed in the base with a non-empty storage trie (a create there collides). */
    readonly baseStorage: boolean,
  ) {}
}

type Undo = () => void;

/**
 * Yields the base reads still needed of `address`'s account (and code) that are not in memory,
 * before the opcode (or the transaction) changes anything: the driver loads each and resumes there.
 */
export function* accountLoads(world: WorldState, address: bigint, withCode: boolean): Generator<StateMiss, void, void> {
  for (let miss = world.accountMiss(address, withCode), i = 0; miss !== undefined && i < 2; miss = world.accountMiss(address, withCode), i++) yield miss;
}

export class WorldState {
  private readonly accounts = new Map<bigint, Account>();
  private readonly journal: Undo[] = [];
  readonly warm = new Set<bigint>();
  readonly logs: Log[] = [];
  readonly created = new Set<bigint>();
  readonly destructed = new Set<bigint>();
  /** Accounts whose balance, nonce or code was set (EIP-161's touched accounts), undone with their frame. */
  readonly written = new Set<bigint>();
  refund = 0;

  constructor(private readonly base: BaseState) {}

  get(address: bigint): Account {
    let account = this.accounts.get(address);
    if (account === undefined) {
      const base = this.base.account(address);
      account = base
        ? new Account(address, base.nonce, base.balance, base.codeHash, false, !base.storageEmpty)
        : new Account(address, 0n, 0n, KECCAK_EMPTY, true, false);
      if (!base) account.code = EMPTY;
      this.accounts.set(address, account);
    }
    return account;
  }

  /** Accounts this execution has read or written. */
  touched(): IterableIterator<Account> {
    return this.accounts.values();
  }

  code(account: Account): Uint8Array {
    if (account.code === undefined) {
      account.code = account.codeHash !== undefined && equal32(account.codeHash, KECCAK_EMPTY) ? EMPTY : this.base.code(account.address);
    }
    return account.code;
  }

  codeHash(account: Account): Uint8Array {
    if (account.codeHash === undefined) account.codeHash = keccak256(this.code(account));
    return account.codeHash;
  }

  /** The account has no code. */
  isEmptyCode(account: Account): boolean {
    return account.code !== undefined ? account.code.length === 0 : equal32(this.codeHash(account), KECCAK_EMPTY);
  }

  /** EIP-161 emptiness: no nonce, no balance, no code. */
  isEmpty(account: Account): boolean {
    return account.nonce === 0n && account.balance === 0n && this.isEmptyCode(account);
  }

  originalValue(account: Account, slot: bigint): bigint {
    if (account.fresh) return account.original.get(slot) ?? 0n;
    let value = account.original.get(slot);
    if (value === undefined) {
      value = this.base.storage(account.address, slot);
      account.original.set(slot, value);
    }
    return value;
  }

  /**
   * The base read an SLOAD or SSTORE of `slot` in `account` would miss, or undefined when it would
   * miss none. Asked before the opcode changes anything, so it can stop there and resume.
   */
  storageMiss(account: Account, slot: bigint): StateMiss | undefined {
    if (account.storage.has(slot) || account.fresh || account.original.has(slot) || this.base.holds('storage', account.address, slot)) return undefined;
    return new StateMiss('storage', account.address, slot);
  }

  /** The base read that reading `address`'s account (and with `withCode`, its code) would miss next, or undefined. */
  accountMiss(address: bigint, withCode: boolean): StateMiss | undefined {
    const account = this.accounts.get(address);
    let codeHash: Uint8Array | undefined;
    if (account === undefined) {
      if (!this.base.holds('account', address)) return new StateMiss('account', address);
      // An account the base lacks gets empty code.
      codeHash = this.base.account(address)?.codeHash ?? KECCAK_EMPTY;
    } else {
      if (account.code !== undefined) return undefined;
      codeHash = account.codeHash;
    }
    if (!withCode || (codeHash !== undefined && equal32(codeHash, KECCAK_EMPTY)) || this.base.holds('code', address)) return undefined;
    return new StateMiss('code', address);
  }

  sload(account: Account, slot: bigint): bigint {
    const value = account.storage.get(slot);
    return value !== undefined ? value : this.originalValue(account, slot);
  }

  sstore(account: Account, slot: bigint, value: bigint): void {
    const had = account.storage.has(slot);
    const before = account.storage.get(slot);
    account.storage.set(slot, value);
    this.journal.push(had ? () => void account.storage.set(slot, before!) : () => void account.storage.delete(slot));
  }

  tload(account: Account, slot: bigint): bigint {
    return account.transient?.get(slot) ?? 0n;
  }

  tstore(account: Account, slot: bigint, value: bigint): void {
    const map = (account.transient ??= new Map());
    const before = map.get(slot);
    map.set(slot, value);
    this.journal.push(before === undefined ? () => void map.delete(slot) : () => void map.set(slot, before));
  }

  /** The base's account (state before the execution), undefined when it does not exist. */
  baseAccount(address: bigint): BaseAccount | undefined {
    return this.base.account(address);
  }

  /**
   * Whether the account exists once the transaction ends: one created and destroyed in it does not
   * (EIP-6780), one it wrote to exists unless left empty (EIP-161), any other as it was in the base.
   */
  existsAfter(address: bigint): boolean {
    if (this.destructed.has(address) && this.created.has(address)) return false;
    return this.written.has(address) ? !this.isEmpty(this.get(address)) : this.baseAccount(address) !== undefined;
  }

  /** The base's code of an account that exists there. */
  baseCode(address: bigint, codeHash: Uint8Array): Uint8Array {
    return equal32(codeHash, KECCAK_EMPTY) ? EMPTY : this.base.code(address);
  }

  private markWritten(account: Account): void {
    const address = account.address;
    if (this.written.has(address)) return;
    this.written.add(address);
    this.journal.push(() => void this.written.delete(address));
  }

  setBalance(account: Account, value: bigint): void {
    this.markWritten(account);
    const before = account.balance;
    account.balance = value;
    this.journal.push(() => {
      account.balance = before;
    });
  }

  setNonce(account: Account, value: bigint): void {
    this.markWritten(account);
    const before = account.nonce;
    account.nonce = value;
    this.journal.push(() => {
      account.nonce = before;
    });
  }

  setCode(account: Account, code: Uint8Array): void {
    this.markWritten(account);
    const before = account.code;
    const beforeHash = account.codeHash;
    account.code = code;
    account.codeHash = undefined;
    this.journal.push(() => {
      account.code = before;
      account.codeHash = beforeHash;
    });
  }

  /** A contract is created at `account`: its storage starts empty. */
  markCreated(account: Account): void {
    const wasFresh = account.fresh;
    const storage = new Map(account.storage);
    const original = new Map(account.original);
    account.fresh = true;
    account.storage.clear();
    account.original.clear();
    this.created.add(account.address);
    this.journal.push(() => {
      account.fresh = wasFresh;
      account.storage.clear();
      for (const [k, v] of storage) account.storage.set(k, v);
      account.original.clear();
      for (const [k, v] of original) account.original.set(k, v);
      this.created.delete(account.address);
    });
  }

  markDestructed(address: bigint): void {
    if (this.destructed.has(address)) return;
    this.destructed.add(address);
    this.journal.push(() => void this.destructed.delete(address));
  }

  /** Warms `address`; true when it was cold. */
  warmAddress(address: bigint): boolean {
    if (this.warm.has(address)) return false;
    this.warm.add(address);
    this.journal.push(() => void this.warm.delete(address));
    return true;
  }

  /** Warms a slot; true when it was cold. */
  warmSlot(account: Account, slot: bigint): boolean {
    if (account.warmSlots.has(slot)) return false;
    account.warmSlots.add(slot);
    this.journal.push(() => void account.warmSlots.delete(slot));
    return true;
  }

  addLog(log: Log): void {
    this.logs.push(log);
    this.journal.push(() => void this.logs.pop());
  }

  checkpoint(): number {
    return this.journal.length;
  }

  revert(checkpoint: number): void {
    const journal = this.journal;
    while (journal.length > checkpoint) journal.pop()!();
  }
}

export function equal32(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
