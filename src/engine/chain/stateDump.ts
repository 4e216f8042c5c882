// anvil_dumpState / anvil_loadState: the working state as anvil 1.7.1's dump document (JSON, gzipped
// on the wire: `block` env, `accounts` with nonce, balance, code and storage, `best_block_number`;
// no blocks or transactions), and the reading of such a document, from anvil or from here, with
// every field validated and everything bounded (bytes inflated, accounts, slots), so a corrupt or
// hostile document is a clear -32602 and never a stall or an exhausted heap.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { Address, bytesToHex, bytesToUnprefixedHex, setLengthLeft, unpadBytes } from '@ethereumjs/util';
import { z } from 'zod';
import { InvalidParamsError, LimitExceededError } from '../../rpc/errors.js';
import type { StateKeyIndex } from './stateKeyIndex.js';

/** Bytes a loaded document may inflate to. */
export const MAX_DUMP_BYTES = 64 * 1024 * 1024;
/** Accounts and storage slots one dump or load may hold. */
export const MAX_DUMP_ACCOUNTS = 100_000;
export const MAX_DUMP_SLOTS = 1_000_000;
/** Accounts handled between turns of the event loop. */
const ACCOUNTS_PER_TURN = 5;

export interface DumpedAccount {
  nonce: number;
  balance: string;
  code: string;
  storage: Record<string, string>;
}

export interface StateDumpDocument {
  /**
   * null: anvil takes a dump's block env as its best block and refuses the load when that block is
   * not among the dump's blocks (this dump carries none), so the env is left out.
   */
  block: null;
  accounts: Record<string, DumpedAccount>;
  /** null: the dump carries no blocks (anvil checks a best block number against the blocks given). */
  best_block_number: null;
  blocks: unknown[];
  transactions: unknown[];
  historical_states: null;
}

const hex = (what: string) => z.string({ error: `expected ${what} as a hex string` }).regex(/^0x[0-9a-fA-F]*$/, { error: `expected ${what} as a 0x-prefixed hex string` });
const Word = hex('a 32-byte word').refine((s) => s.length <= 66, { error: 'longer than 32 bytes' });
const Nonce = z.union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), hex('a nonce').refine((s) => s.length > 2 && s.length <= 18, { error: 'a nonce of at most 64 bits' })], { error: 'expected a nonce (number or hex)' });
const LoadedAccount = z.object({
  nonce: Nonce.optional(),
  balance: Word.optional(),
  code: hex('code').refine((s) => s.length <= 2 + 2 * 49_152, { error: 'code over 49,152 bytes (EIP-7907 limit)' }).refine((s) => s.length % 2 === 0, { error: 'odd-length code' }).optional(),
  storage: z.record(Word, Word).optional(),
});
const LoadedDump = z.object({
  accounts: z.record(z.string().regex(/^0x[0-9a-fA-F]{40}$/, { error: 'expected a 20-byte hex address as key' }), LoadedAccount),
});

export type LoadedStateDump = z.output<typeof LoadedDump>;

const bigHex = (v: bigint) => `0x${v.toString(16)}`;

/** The working state as anvil's dump document (accounts only). */
export async function dumpState(state: MerkleStateManager, keys: StateKeyIndex): Promise<StateDumpDocument> {
  const { addresses, slots } = keys.count();
  if (addresses > MAX_DUMP_ACCOUNTS || slots > MAX_DUMP_SLOTS) {
    throw new LimitExceededError(`anvil_dumpState: the state holds ${addresses} accounts and ${slots} slots, more than one dump may (${MAX_DUMP_ACCOUNTS} accounts, ${MAX_DUMP_SLOTS} slots)`);
  }
  const accounts: Record<string, DumpedAccount> = {};
  let done = 0;
  for (const entry of keys.addresses()) {
    if (++done % ACCOUNTS_PER_TURN === 0) await yieldToLoop();
    const address = new Address(entry.address);
    const account = await state.getAccount(address);
    if (!account) continue;
    const storage: Record<string, string> = {};
    for (const slot of entry.slots) {
      const value = await state.getStorage(address, slot);
      if (value.length > 0) storage[bytesToHex(slot)] = bytesToHex(setLengthLeft(value, 32));
    }
    accounts[`0x${bytesToUnprefixedHex(entry.address)}`] = {
      nonce: Number(account.nonce),
      balance: bigHex(account.balance),
      code: bytesToHex(await state.getCode(address)),
      storage,
    };
  }
  return {
    block: null,
    accounts,
    best_block_number: null,
    blocks: [],
    transactions: [],
    historical_states: null,
  };
}

/** Reads a dump: gzip (anvil's wire form) or plain JSON bytes, validated and bounded. */
export function parseStateDump(bytes: Uint8Array): LoadedStateDump {
  let text: string;
  try {
    const inflated = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes, { maxOutputLength: MAX_DUMP_BYTES }) : Buffer.from(bytes);
    text = inflated.toString('utf8');
  } catch (error) {
    const tooBig = error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new InvalidParamsError(tooBig ? `anvil_loadState: the state inflates past ${MAX_DUMP_BYTES} bytes` : 'anvil_loadState: the state is neither gzip nor JSON (corrupt gzip data)');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InvalidParamsError('anvil_loadState: the state is not valid JSON');
  }
  const parsed = LoadedDump.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidParamsError(`anvil_loadState: invalid state at ${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`);
  }
  const accounts = Object.values(parsed.data.accounts);
  const slots = accounts.reduce((n, a) => n + Object.keys(a.storage ?? {}).length, 0);
  if (accounts.length > MAX_DUMP_ACCOUNTS || slots > MAX_DUMP_SLOTS) {
    throw new InvalidParamsError(`anvil_loadState: ${accounts.length} accounts and ${slots} slots, more than one load may hold (${MAX_DUMP_ACCOUNTS} accounts, ${MAX_DUMP_SLOTS} slots)`);
  }
  return parsed.data;
}

/** Longest a turn of applyStateDump runs before it hands the loop back (at most ACCOUNTS_PER_TURN accounts). */
const TURN_MS = 3;

/**
 * Writes a loaded dump into `state` (merging, as anvil does: given fields and slots replace, others
 * stay), a turn of the event loop at a time (a few ms, or ACCOUNTS_PER_TURN accounts); each turn's
 * trie work is flushed, then `betweenTurns` runs (the chain writes that turn's trie nodes out in
 * chunks of its own, so they do not pile up in memory nor reach SQLite in one go).
 */
export async function applyStateDump(state: MerkleStateManager, dump: LoadedStateDump, betweenTurns?: () => Promise<void>): Promise<void> {
  let inTurn = 0;
  let turnStart = performance.now();
  for (const key in dump.accounts) {
    if (++inTurn > ACCOUNTS_PER_TURN || performance.now() - turnStart >= TURN_MS) {
      // Into the trie now, a turn's worth at a time: left to the final state root, the whole
      // load's trie work ran in one go (20,000 accounts held the event loop for seconds).
      await state.flush();
      await yieldToLoop();
      await betweenTurns?.();
      inTurn = 1;
      turnStart = performance.now();
    }
    const account = dump.accounts[key]!;
    const address = new Address(Buffer.from(key.slice(2), 'hex'));
    const fields: { nonce?: bigint; balance?: bigint } = {};
    if (account.nonce !== undefined) fields.nonce = BigInt(account.nonce);
    if (account.balance !== undefined) fields.balance = BigInt(account.balance === '0x' ? 0 : account.balance);
    await state.modifyAccountFields(address, fields);
    if (account.code !== undefined) await state.putCode(address, Buffer.from(account.code.slice(2), 'hex'));
    for (const [slot, value] of Object.entries(account.storage ?? {})) {
      await state.putStorage(address, setLengthLeft(Buffer.from(slot.slice(2).padStart(64, '0'), 'hex'), 32), unpadBytes(Buffer.from(value.slice(2).padStart(64, '0'), 'hex')));
    }
  }
}
