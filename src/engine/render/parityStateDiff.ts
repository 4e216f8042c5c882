// Parity/OpenEthereum `stateDiff`: per changed account, balance/nonce/code/storage with the
// markers `=` (same), `*` (changed), `+` (born) and `-` (died). Reference:
// ../shared/conformance/README.md §3.7 and the core-geth `state_diff` fixtures.
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { slotKey } from '../record/stateTracker.js';
import type { ExecutionRecord, TouchedAccount } from '../record/types.js';
import { existing } from './prestateTracer.js';
import type { Json } from './types.js';

type Marker = Json;

function diff<T>(from: T, to: T, same: (a: T, b: T) => boolean, format: (v: T) => string): Marker {
  return same(from, to) ? '=' : { '*': { from: format(from), to: format(to) } };
}

const eq = <T>(a: T, b: T): boolean => a === b;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

function accountDiff(account: TouchedAccount): { [key: string]: Json } | undefined {
  const pre = existing(account.pre);
  const post = existing(account.post);
  if (!pre && !post) return undefined;
  if (!pre) {
    const storage: Record<string, Json> = {};
    for (const [slot, value] of account.storage) {
      // A born account lists the slots with a value and those written to and back to zero.
      const next = value.post ?? 0n;
      if (next !== 0n || value.dirty) storage[slot] = { '+': slotKey(next) };
    }
    return {
      balance: { '+': quantityToHex(post!.balance) },
      code: { '+': bytesToHex(post!.code) },
      nonce: { '+': quantityToHex(post!.nonce) },
      storage,
    };
  }
  if (!post) {
    return {
      balance: { '-': quantityToHex(pre.balance) },
      code: { '-': bytesToHex(pre.code) },
      nonce: { '-': quantityToHex(pre.nonce) },
      storage: {},
    };
  }
  const storage: Record<string, Json> = {};
  for (const [slot, value] of account.storage) {
    const next = value.post ?? 0n;
    if (next !== value.pre) storage[slot] = { '*': { from: slotKey(value.pre), to: slotKey(next) } };
  }
  const out = {
    balance: diff(pre.balance, post.balance, eq, quantityToHex),
    code: diff(pre.code, post.code, sameBytes, bytesToHex),
    nonce: diff(pre.nonce, post.nonce, eq, quantityToHex),
    storage,
  };
  const unchanged = out.balance === '=' && out.code === '=' && out.nonce === '=' && Object.keys(storage).length === 0;
  return unchanged ? undefined : out;
}

/** Renders the Parity `stateDiff` object of one transaction (addresses sorted). */
export function renderParityStateDiff(record: ExecutionRecord): { [address: string]: Json } {
  if (!record.accounts) throw new Error('stateDiff needs a record with state');
  const out: { [address: string]: Json } = {};
  const addresses = [...record.accounts.keys()].sort();
  for (const address of addresses) {
    const d = accountDiff(record.accounts.get(address)!);
    if (d) out[address] = d;
  }
  return out;
}
