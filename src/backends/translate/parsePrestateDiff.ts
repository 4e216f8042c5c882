// geth `prestateTracer` output → the record's touched accounts: `diffMode` ({pre, post}: changed
// accounts before, and their changed fields after) gives pre and post states and the changed
// slots; the default mode (state before of every touched account, slots read or written) says
// whether any storage was touched at all. Accepts anvil's dialect too (no `codeHash`, touched
// empty accounts listed as `{"balance":"0x0"}`, which the renderers treat as absent, like geth).
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { AccountState, SlotRecord, TouchedAccount } from '../../engine/record/types.js';
import { address, bytes, quantity } from './txFacts.js';
import { type Obj, upstreamOutputReader } from './upstreamOutput.js';

const { malformed, object, parse } = upstreamOutputReader('prestateTracer');

function word(value: unknown, where: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) throw malformed(where, 'is not a 32-byte word');
  return BigInt(value);
}

const slotKey = (key: bigint): string => `0x${key.toString(16).padStart(64, '0')}`;

function stateOf(json: Obj, where: string, base?: AccountState): AccountState {
  const code = json.code === undefined ? (base?.code ?? new Uint8Array(0)) : parse(where, 'code', bytes, json.code);
  let nonce = base?.nonce ?? 0n;
  if (json.nonce !== undefined) {
    if (typeof json.nonce !== 'number' || !Number.isSafeInteger(json.nonce) || json.nonce < 0) throw malformed(where, '`nonce` is not a JSON number');
    nonce = BigInt(json.nonce);
  }
  return {
    balance: json.balance === undefined ? (base?.balance ?? 0n) : parse(where, 'balance', quantity, json.balance),
    nonce,
    code,
    codeHash: json.codeHash !== undefined ? parse(where, 'codeHash', bytes, json.codeHash) : keccak_256(code),
  };
}

function storageOf(json: Obj, where: string): Map<string, bigint> {
  const out = new Map<string, bigint>();
  if (json.storage === undefined) return out;
  for (const [key, value] of Object.entries(object(json.storage, `${where}.storage`))) {
    out.set(slotKey(word(key, `${where}.storage key`)), word(value, `${where}.storage[${key.slice(0, 70)}]`));
  }
  return out;
}

/**
 * Touched accounts from a `diffMode` result. An account only in `pre` was destroyed; one only in
 * `post` was born; a slot missing on one side is zero there (geth leaves zero values out).
 */
export function accountsFromPrestateDiff(result: unknown): Map<string, TouchedAccount> {
  const top = object(result, 'result');
  const pre = object(top.pre, 'pre');
  const post = object(top.post, 'post');
  const accounts = new Map<string, TouchedAccount>();
  const addresses = new Set([...Object.keys(pre), ...Object.keys(post)]);
  for (const key of addresses) {
    const addr = parse(key, 'address', address, key);
    const lower = key.toLowerCase();
    const preJson = pre[key] === undefined ? undefined : object(pre[key], `pre[${lower}]`);
    const postJson = post[key] === undefined ? undefined : object(post[key], `post[${lower}]`);
    const before = preJson ? stateOf(preJson, `pre[${lower}]`) : undefined;
    const after = postJson ? stateOf(postJson, `post[${lower}]`, before) : undefined;
    const storage = new Map<string, SlotRecord>();
    const preSlots = preJson ? storageOf(preJson, `pre[${lower}]`) : new Map<string, bigint>();
    const postSlots = postJson ? storageOf(postJson, `post[${lower}]`) : new Map<string, bigint>();
    for (const slot of new Set([...preSlots.keys(), ...postSlots.keys()])) {
      storage.set(slot, { pre: preSlots.get(slot) ?? 0n, post: after ? (postSlots.get(slot) ?? 0n) : undefined, dirty: true });
    }
    accounts.set(lower, { address: addr, pre: before, post: after, storage, created: before === undefined && after !== undefined });
  }
  return accounts;
}

/** True when a default-mode prestateTracer result lists no storage slot for any account: no SLOAD or SSTORE ran. */
export function prestateTouchedNoStorage(result: unknown): boolean {
  const top = object(result, 'result');
  for (const [key, account] of Object.entries(top)) {
    const storage = object(account, `[${key}]`).storage;
    if (storage !== undefined && Object.keys(object(storage, `[${key}].storage`)).length > 0) return false;
  }
  return true;
}
