// geth's `prestateTracer`: the touched accounts with their state before the transaction, or with
// `diffMode` the changed fields before and after. Reference: eth/tracers/native/prestate.go and
// the `prestate_tracer*` fixtures (exact key sets matter: nonce is a JSON number left out at 0,
// code/codeHash only for accounts with code, storage left out when empty).
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { slotKey } from '../record/stateTracker.js';
import type { AccountState, ExecutionRecord, TouchedAccount } from '../record/types.js';
import type { Json } from './types.js';

export interface PrestateTracerConfig {
  diffMode?: boolean;
  disableCode?: boolean;
  disableStorage?: boolean;
  includeEmpty?: boolean;
}

type AccountJson = { [key: string]: Json };

const EMPTY_STATE: AccountState = { balance: 0n, nonce: 0n, code: new Uint8Array(0), codeHash: new Uint8Array(32) };

function accountFields(state: AccountState, config: PrestateTracerConfig): AccountJson {
  const out: AccountJson = { balance: quantityToHex(state.balance) };
  if (state.code.length > 0) {
    if (!config.disableCode) out.code = bytesToHex(state.code);
    out.codeHash = bytesToHex(state.codeHash);
  }
  if (state.nonce !== 0n) out.nonce = Number(state.nonce);
  return out;
}

/** geth treats an account with zero balance and nonce and no code as absent (`account.exists`). */
export function existing(state: AccountState | undefined): AccountState | undefined {
  return state && (state.balance !== 0n || state.nonce !== 0n || state.code.length > 0) ? state : undefined;
}

function sortedAccounts(record: ExecutionRecord): [string, TouchedAccount][] {
  return [...(record.accounts ?? new Map<string, TouchedAccount>()).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

function renderPrestate(record: ExecutionRecord, config: PrestateTracerConfig): Record<string, AccountJson> {
  const out: Record<string, AccountJson> = {};
  for (const [address, account] of sortedAccounts(record)) {
    const before = existing(account.pre);
    if (!before && !config.includeEmpty) continue;
    const fields = accountFields(before ?? EMPTY_STATE, config);
    if (!config.disableStorage && account.storage.size > 0) {
      const storage: Record<string, string> = {};
      for (const [slot, value] of account.storage) storage[slot] = slotKey(value.pre);
      fields.storage = storage;
    }
    out[address] = fields;
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function renderDiff(record: ExecutionRecord, config: PrestateTracerConfig): { post: Record<string, AccountJson>; pre: Record<string, AccountJson> } {
  const pre: Record<string, AccountJson> = {};
  const post: Record<string, AccountJson> = {};
  for (const [address, account] of sortedAccounts(record)) {
    const before = existing(account.pre);
    const after = existing(account.post);
    if (!before && !after) continue;
    if (before && !after) {
      // Destroyed: kept in pre with every slot that was read, absent from post (geth).
      const fields = accountFields(before, config);
      const storage: Record<string, string> = {};
      for (const [slot, value] of account.storage) storage[slot] = slotKey(value.pre);
      if (!config.disableStorage && Object.keys(storage).length > 0) fields.storage = storage;
      pre[address] = fields;
      continue;
    }
    const b = before ?? EMPTY_STATE;
    const a = after!;
    const changed: AccountJson = {};
    if (a.balance !== b.balance) changed.balance = quantityToHex(a.balance);
    if (a.nonce !== b.nonce) changed.nonce = Number(a.nonce);
    if (!sameBytes(a.code, b.code)) {
      if (!config.disableCode) changed.code = bytesToHex(a.code);
      changed.codeHash = bytesToHex(a.codeHash);
    }
    const preStorage: Record<string, string> = {};
    const postStorage: Record<string, string> = {};
    let storageChanged = false;
    for (const [slot, value] of account.storage) {
      const next = value.post ?? 0n;
      if (next === value.pre) continue;
      storageChanged = true;
      if (value.pre !== 0n) preStorage[slot] = slotKey(value.pre);
      if (next !== 0n) postStorage[slot] = slotKey(next);
    }
    if (Object.keys(changed).length === 0 && !storageChanged) continue;
    if (!config.disableStorage && Object.keys(postStorage).length > 0) changed.storage = postStorage;
    post[address] = changed;
    if (before) {
      const fields = accountFields(before, config);
      if (!config.disableStorage && Object.keys(preStorage).length > 0) fields.storage = preStorage;
      pre[address] = fields;
    }
  }
  return { post, pre };
}

/** Renders the `prestateTracer` result of one transaction. */
export function renderPrestateTracer(record: ExecutionRecord, config: PrestateTracerConfig): Json {
  if (!record.accounts) throw new Error('prestateTracer needs a record with state');
  return (config.diffMode ? renderDiff(record, config) : renderPrestate(record, config)) as Json;
}
