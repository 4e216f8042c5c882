// Parity `stateDiff` (trace_call, trace_replay*) → the record's touched accounts, for geth's
// prestateTracer `diffMode` from a Parity-family node. A changed account's `=` fields (unchanged
// balance, nonce or code) carry no value, yet diffMode prints an account's whole state before the
// call: the caller reads them from the node at the state the call ran on (`unchanged`), or the
// answer is refused. A destroyed account is refused too: diffMode lists every slot it read, which
// a stateDiff does not show. Accounts only read are not in a stateDiff at all, so the default
// (non-diff) prestateTracer is never translated from one.
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { AccountState, SlotRecord, TouchedAccount } from '../../engine/record/types.js';
import { TranslationGapError } from '../../rpc/errors.js';
import type { Hex } from '../../rpc/hex.js';
import { address, bytes, quantity } from './txFacts.js';
import { type Obj, upstreamOutputReader } from './upstreamOutput.js';

const { malformed, object, parse } = upstreamOutputReader('stateDiff');

type Field = 'balance' | 'nonce' | 'code';
/** A field's value before and after; undefined where the diff says `=` (unchanged, value not given). */
type Change<T> = { kind: '=' } | { kind: '+'; to: T } | { kind: '-'; from: T } | { kind: '*'; from: T; to: T };

function change<T>(value: unknown, where: string, read: (v: unknown, f: string) => T): Change<T> {
  if (value === '=') return { kind: '=' };
  const marker = object(value, where);
  if (marker['+'] !== undefined) return { kind: '+', to: parse(where, '+', read, marker['+']) };
  if (marker['-'] !== undefined) return { kind: '-', from: parse(where, '-', read, marker['-']) };
  const star = object(marker['*'], `${where}.*`);
  return { kind: '*', from: parse(where, '*.from', read, star.from), to: parse(where, '*.to', read, star.to) };
}

/** The unchanged fields of the accounts a diff lists, at the state the call or transaction ran on. */
export type UnchangedReader = (address: Hex, fields: readonly Field[]) => Promise<Partial<Record<Field, bigint | Uint8Array>>>;

const word = (v: unknown, f: string): bigint => quantity(v, f);

/** Touched accounts of a `stateDiff`, with `=` fields read through `unchanged`. */
export async function accountsFromStateDiff(method: string, diff: unknown, unchanged: UnchangedReader): Promise<Map<string, TouchedAccount>> {
  const top = object(diff, 'stateDiff');
  const accounts = new Map<string, TouchedAccount>();
  for (const [key, raw] of Object.entries(top)) {
    const where = `stateDiff[${key.slice(0, 42)}]`;
    const addr = parse(where, 'address', address, key);
    const json: Obj = object(raw, where);
    const balance = change(json.balance, `${where}.balance`, quantity);
    const nonce = change(json.nonce, `${where}.nonce`, quantity);
    const code = change(json.code, `${where}.code`, bytes);
    const kinds = new Set([balance.kind, nonce.kind, code.kind]);
    if (kinds.has('-')) throw new TranslationGapError(method, 'destroyedStorage', `${key} was destroyed: geth's diffMode lists every slot it read, which a stateDiff does not show`);
    const born = kinds.has('+');
    if (born && kinds.size !== 1) throw malformed(where, 'an account is born in some fields only');
    const missing = (['balance', 'nonce', 'code'] as const).filter((f) => ({ balance, nonce, code })[f].kind === '=');
    const known = missing.length > 0 ? await unchanged(key.toLowerCase() as Hex, missing) : {};
    const before = <T>(c: Change<T>, f: Field): T => (c.kind === '*' ? c.from : (known[f] as T));
    const after = <T>(c: Change<T>, f: Field): T => (c.kind === '*' || c.kind === '+' ? c.to : (known[f] as T));
    for (const f of missing) if (known[f] === undefined) throw malformed(where, `the node did not give ${f}`);
    const state = (b: bigint, n: bigint, c: Uint8Array): AccountState => ({ balance: b, nonce: n, code: c, codeHash: keccak_256(c) });
    const pre = born ? undefined : state(before(balance, 'balance'), before(nonce, 'nonce'), before(code, 'code'));
    const post = state(after(balance, 'balance'), after(nonce, 'nonce'), after(code, 'code'));
    const storage = new Map<string, SlotRecord>();
    for (const [slot, value] of Object.entries(json.storage === undefined ? {} : object(json.storage, `${where}.storage`))) {
      const c = change(value, `${where}.storage[${slot.slice(0, 66)}]`, word);
      const keyHex = `0x${parse(where, 'storage key', word, slot).toString(16).padStart(64, '0')}`;
      if (c.kind === '=') continue;
      if (c.kind === '-') throw malformed(where, 'a slot died in a live account');
      storage.set(keyHex, { pre: c.kind === '+' ? 0n : c.from, post: c.to, dirty: true });
    }
    accounts.set(key.toLowerCase(), { address: addr, pre, post, storage, created: born });
  }
  return accounts;
}
