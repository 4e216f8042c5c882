// The addresses and storage slots the chain's state was ever written at, in plain form. The state
// trie keys them by hash, so without this index a state dump (anvil_dumpState) could not name them.
// The miner's and the setters' state managers report every write; the keys are buffered and
// written in the same SQLite transaction as the block or setter change that made them (table
// `state_keys`, created on open for older data dirs, whose earlier keys it lacks).
import type { Database, Statement } from 'better-sqlite3';
import type { SqlWrites } from '../../store/sqlite/sqlWrites.js';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { bytesToUnprefixedHex, setLengthLeft } from '@ethereumjs/util';

/** Marks an account row (no slot); slots are always 32 bytes. */
const NO_SLOT = new Uint8Array(0);

export interface StateKeyIndex {
  /** Notes a write to `address` (and to `slot`, 32 bytes, when given); kept until flushed. */
  note(address: Uint8Array, slot?: Uint8Array): void;
  /** Writes the noted keys (call inside the commit's SQLite transaction), or records them in `writes`. */
  flushPending(writes?: SqlWrites): void;
  /**
   * Writes up to `max` noted keys in a transaction of their own, ahead of the commit (a state load's
   * tens of thousands of keys in one go held the event loop); returns how many are left.
   */
  flushSome(max: number): number;
  discardPending(): void;
  /** Every known address (lowercase hex without prefix), with its known slots, in key order. */
  addresses(): Iterable<{ address: Uint8Array; slots: Uint8Array[] }>;
  /** Number of known addresses and slots. */
  count(): { addresses: number; slots: number };
}

export function createStateKeyIndex(db: Database): StateKeyIndex {
  db.exec('CREATE TABLE IF NOT EXISTS state_keys (address BLOB NOT NULL, slot BLOB NOT NULL, PRIMARY KEY (address, slot)) WITHOUT ROWID');
  const insertSql = 'INSERT OR IGNORE INTO state_keys (address, slot) VALUES (?, ?)';
  const insert = db.prepare(insertSql);
  const all = db.prepare('SELECT address, slot FROM state_keys ORDER BY address, slot') as Statement<[], { address: Buffer; slot: Buffer }>;
  const counts = db.prepare("SELECT COUNT(DISTINCT address) AS addresses, SUM(length(slot) > 0) AS slots FROM state_keys") as Statement<[], { addresses: number; slots: number | null }>;
  let pending = new Map<string, [Uint8Array, Uint8Array]>();
  return {
    note(address, slot) {
      const word = slot ? setLengthLeft(slot, 32) : NO_SLOT;
      pending.set(`${bytesToUnprefixedHex(address)}:${bytesToUnprefixedHex(word)}`, [address, word]);
      if (slot) pending.set(`${bytesToUnprefixedHex(address)}:`, [address, NO_SLOT]);
    },
    flushPending(writes) {
      for (const [address, slot] of pending.values()) {
        if (writes) writes.run(insertSql, address, slot);
        else insert.run(Buffer.from(address), Buffer.from(slot));
      }
      pending = new Map();
    },
    flushSome(max) {
      db.transaction(() => {
        let written = 0;
        for (const [id, [address, slot]] of pending) {
          if (written++ >= max) break;
          insert.run(Buffer.from(address), Buffer.from(slot));
          pending.delete(id);
        }
      })();
      return pending.size;
    },
    discardPending() {
      pending = new Map();
    },
    *addresses() {
      let current: { address: Uint8Array; slots: Uint8Array[] } | undefined;
      for (const row of all.iterate()) {
        if (!current || !current.address.every((b, i) => b === row.address[i])) {
          if (current) yield current;
          current = { address: new Uint8Array(row.address), slots: [] };
        }
        if (row.slot.length > 0) current.slots.push(new Uint8Array(row.slot));
      }
      if (current) yield current;
    },
    count() {
      const row = counts.get()!;
      return { addresses: row.addresses, slots: row.slots ?? 0 };
    },
  };
}

/** Makes `state` report every account, code and storage write to `index` (the miner's and setters' managers). */
export function reportStateWrites(state: MerkleStateManager, index: StateKeyIndex): MerkleStateManager {
  const putAccount = state.putAccount.bind(state);
  const modifyAccountFields = state.modifyAccountFields.bind(state);
  const putCode = state.putCode.bind(state);
  const putStorage = state.putStorage.bind(state);
  state.putAccount = (address, account) => {
    index.note(address.bytes);
    return putAccount(address, account);
  };
  state.modifyAccountFields = (address, fields) => {
    index.note(address.bytes);
    return modifyAccountFields(address, fields);
  };
  state.putCode = (address, code) => {
    index.note(address.bytes);
    return putCode(address, code);
  };
  state.putStorage = (address, key, value) => {
    index.note(address.bytes, key);
    return putStorage(address, key, value);
  };
  return state;
}
