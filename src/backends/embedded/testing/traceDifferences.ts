// Test support: where anvil 1.7.1 and Tracehook's geth/OpenEthereum conventions differ
// (DIFFERENCES, also docs/trace-conventions.md), and the normalisers that rewrite anvil's answers
// into our convention after checking each difference's premise. Shared by the anvil differential
// tests and the trace fuzzer; nothing here may hide a difference that is not in the table.
import { isDeepStrictEqual } from 'node:util';
import type { Json } from './traceAnvilPair.js';

export type Obj = { [key: string]: Json };
export type Entry = Obj & { traceAddress: number[]; subtraces: number; action: Obj; result: Obj | null };
export type Diff = { [address: string]: { balance: Json; code: Json; nonce: Json; storage: Json } };

/**
 * Where anvil 1.7.1 (revm-inspectors) and this service deliberately differ, with the reason. Each
 * normaliser rewrites anvil's answer into our convention after checking the premise.
 */
export const DIFFERENCES = {
  estimateAnvilBase:
    'eth_estimateGas of a call to code that costs nothing (a contract that STOPs at once): anvil answers 21,001 (its search takes the 21,000 base as a failing bound, so it never answers it for a call that runs code); geth (and we) answer 21,000, at which the call succeeds.',
  estimatePrecompileTransfer:
    'eth_estimateGas of a call with no data to a precompile: anvil answers 21,000 without running it (it has no code), also where the precompile fails on empty input (the BLS12-381 ones) or charges for it (ecrecover 3,000); geth (and we) try 21,000 and search on when it fails, so the call answers its error or what it needs.',
  estimateLowerBound:
    "eth_estimateGas of a call whose child fails whatever gas it is given and is caught (TraceProbe.catchOutOfGas: a 30,000-gas call that runs out): anvil bisects from 21,000 and finds the least limit at which the caller still succeeds, with the child given less than the 30,000 it named; geth (and we) take the gas the unconstrained run used as the lower bound (geth's eth/gasestimator: only code that checks the gas left could need less), so the estimate gives the child its 30,000.",
  callTracerRootGas:
    "callTracer root `gas`: anvil reports the gas left after intrinsic gas; geth (and we) report the transaction's gas limit (go-ethereum call_tracer/simple.json).",
  callTracerFailedLogs:
    'callTracer withLog: anvil keeps logs of failed frames; geth (and we) drop the logs of a failed frame and of every frame below it (call_tracer_withLog/tx_failed.json).',
  prestateEmptyAccounts:
    'prestateTracer: anvil lists touched accounts that do not exist ({"balance":"0x0"}); geth (and we) leave them out unless includeEmpty (prestate_tracer/create_existing_contract.json).',
  prestateCodeHash: 'prestateTracer: anvil omits `codeHash`; geth 1.14+ (and we) add it next to `code` (prestate_tracer fixtures).',
  parityPrecompileCalls:
    'trace_*: anvil lists nested zero-value CALL/STATICCALL frames into precompiles; OpenEthereum and Erigon (and we) do not.',
  parityPrecheckFailures:
    'trace_*: anvil lists a call that failed its balance pre-check ("Insufficient balance for transfer"); OpenEthereum (and we) list no entry for it.',
  blockHash: 'blockHash: the two chains seal different headers (timestamp, mix hash), so each side must carry its own hash of the same block number.',
  vmTraceUsed:
    'vmTrace `used`: anvil gives the gas left before the op; OpenEthereum (and we) give the gas left after it (README §3.8), i.e. anvil\'s value minus the op\'s cost.',
  vmTraceAnvilGaps:
    'vmTrace: anvil leaves `store` null on some SSTOREs, pushes a stale stack word instead of the CALL success flag or CREATE address, prints `mem` for every op, gives an `ex` and a different cost to the op that halts (OpenEthereum: `ex: null`), shows `code: "0x"` for a creation transaction, and gives a `sub` to a call that never started; these fields are compared against OpenEthereum\'s rules in parityVmTrace.test.ts instead.',
  callTracerCumulativeGas:
    'callTracer root `gasUsed`: anvil 1.7.1 reports the block\'s cumulative gas used up to and including the transaction (foundry-rs/foundry#15893, fixed by #15901 after 1.7.1); geth (and we) report the transaction\'s own receipt `gasUsed`.',
  anvilHaltNames:
    'error texts: for some halts anvil prints revm\'s halt name in callTracer and trace_* (`OutOfOffset`, `CreateContractSizeLimit`, `CreateCollision`, `StackUnderflow`, `StateChangeDuringStaticCall`, `CallNotAllowedInsideStatic`, `CreateContractStartingWithEF`, `out of gas: out of memory`); we print geth\'s text (`return data out of bounds`, `max code size exceeded`, `contract address collision`, `stack underflow (N <=> M)`, `write protection`) and OpenEthereum\'s (`Out of bounds`, `Out of gas`, `Out of gas`, `Stack underflow`, `Mutable Call In Static Context`; conformance README §3.3).',
  gethErrorDetails:
    'callTracer error texts: anvil says `invalid opcode`, `out of gas` for a code-deposit failure and `precompiled failed` for any failed precompile; geth (and we) say `invalid opcode: opcode 0xNN not defined` / `invalid opcode: INVALID`, `contract creation code storage out of gas` (call_tracer/inner_create_oog_outer_throw.json) and the precompile\'s own error (call_tracer_flat/callcode_precompiled_throw.json: `invalid input length`).',
  anvilReplayDropsPrecompiles:
    'trace_replayBlockTransactions: anvil leaves out every nested call into a precompile that moves no value, also the failed and DELEGATECALL/CALLCODE ones its own trace_transaction lists; OpenEthereum\'s replayed and stored traces are the same trace, so ours are compared with anvil\'s trace_transaction.',
  selfdestructToSelf:
    'SELFDESTRUCT naming its own contract as beneficiary (a contract not created in the transaction, so no funds move, EIP-6780): revm calls no selfdestruct hook, and anvil shows callTracer `from` 0x0 without `to`/`value` and a suicide entry of zeros, or fields taken from an unrelated balance transfer (bluealloy/revm#3833, #3805); geth calls its tracer with the contract, the beneficiary and the balance (core/vm/instructions.go opSelfdestruct6780), and so do we.',
  modexpLengthOverflow:
    'MODEXP (0x05) whose length fields make the gas cost overflow: anvil fails it as a precompile error (`precompiled failed`, `Built-in failed`); geth (and we) fail it for gas (`out of gas`, `Out of gas`: RequiredGas above the supplied gas, core/vm/contracts.go RunPrecompiledContract).',
  callTracerLogIndex:
    'callTracer withLog `index`: anvil counts from the transaction\'s first log and counts logs of reverted frames; geth (and we) give the log\'s index in the block, where a reverted frame\'s logs leave no gap (StateDB.AddLog sets log.Index from logSize, the journal undoes it), i.e. the receipt\'s `logIndex`.',
  prestateFailedSstore:
    'prestateTracer: anvil lists the slot of an SSTORE that fails for gas; geth (and we) do not (the prestate tracer\'s OnOpcode returns on an error, eth/tracers/native/prestate.go).',
  prestateFailedCreateTarget:
    'prestateTracer: when a CREATE/CREATE2 fails (its balance pre-check, a collision) at the address of an existing account, anvil leaves that account out; geth (and we) list it with its prestate (the tracer looks up the address of every CREATE/CREATE2 it sees and drops only accounts that were empty: eth/tracers/native/prestate.go, prestate_tracer/create_existing_contract.json).',
  stateDiffBornZeroSlots:
    'stateDiff of a born account: anvil leaves out slots written and set back to zero; OpenEthereum (and we) list them as `+ 0x0…0` (core-geth state_diff/storage_changed_keep_zero.json).',
  returnDataCopyGasOrder:
    'RETURNDATACOPY past the return data without the gas for its memory: anvil says `return data out of bounds` / `Out of bounds` (revm charges the memory expansion after the bounds check); geth (and we) say `out of gas` / `Out of gas` (geth charges all of the op\'s gas, memory included, before opReturnDataCopy checks the bounds).',
  staticWriteGasOrder:
    'a write in a static context without the gas geth charges first: anvil says `write protection` / `Mutable Call In Static Context` for CREATE/CREATE2 (revm refuses before charging); geth (and we) say `out of gas` (the interpreter charges constant and dynamic gas, the opcode\'s execute function then refuses: core/vm/instructions.go opCreate, opSstore). ethereumjs also refuses first; the recorder corrects it (src/engine/record/gethGasFirst.ts).',
  structLogEmptyFields: 'struct logs: anvil prints `refund: 0` and `returnData: "0x"` on every step; geth (and we) leave them out when empty (`omitempty`).',
  structLogBareHex: 'struct logs: anvil prefixes memory words and storage keys and values with `0x`; geth\'s legacy struct-log JSON (and ours) prints them as bare 64-digit hex.',
  stateDiffBornAccount:
    'stateDiff: an account that did not exist and receives value is `*` from 0x0 with `=` code and nonce in anvil; OpenEthereum (and we) mark it born: `+` balance, `+ 0x0` nonce, `+ 0x` code.',
} as const;

/** Thrown when anvil's answer does not have the shape a documented difference describes. */
export class PremiseError extends Error {}

function premise(ok: boolean, difference: string, detail: unknown): void {
  if (!ok) throw new PremiseError(`${difference}\n  premise failed: ${JSON.stringify(detail)}`);
}

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Rewrites anvil's "changed from nothing" accounts as born (DIFFERENCES.stateDiffBornAccount). */
export function bornAsParity(theirs: Diff, ours: Diff): Diff {
  const out = clone(theirs);
  for (const [address, account] of Object.entries(out)) {
    const mine = ours[address];
    if (!mine || typeof mine.balance !== 'object' || mine.balance === null || !('+' in mine.balance)) continue;
    const changed = (account.balance as { '*'?: { from: string; to: string } })['*'];
    if (!changed) continue;
    premise(changed.from === '0x0' && account.code === '=' && account.nonce === '=', DIFFERENCES.stateDiffBornAccount, { address, account });
    out[address] = { balance: { '+': changed.to }, code: { '+': '0x' }, nonce: { '+': '0x0' }, storage: account.storage };
  }
  bornZeroSlots(out, ours);
  return out;
}

const ZERO_WORD = `0x${'0'.repeat(64)}`;

/** DIFFERENCES.stateDiffBornZeroSlots: adds our `+ 0x0…0` slots to anvil's born accounts that lack them. */
function bornZeroSlots(theirs: Diff, ours: Diff): void {
  for (const [address, account] of Object.entries(theirs)) {
    const mine = ours[address];
    const born = (a: Diff[string] | undefined): boolean => typeof a?.balance === 'object' && a.balance !== null && '+' in a.balance;
    if (!mine || !born(account) || !born(mine)) continue;
    const storage = account.storage as Obj;
    for (const [slot, change] of Object.entries(mine.storage as Obj)) {
      if (slot in storage || (change as Obj)['+'] !== ZERO_WORD) continue;
      storage[slot] = change;
    }
  }
}

/** A CREATE/CREATE2 frame in a callTracer tree failed. */
export function hasFailedCreate(frame: Obj): boolean {
  if (['CREATE', 'CREATE2'].includes(String(frame.type)) && typeof frame.error === 'string') return true;
  return ((frame.calls as Obj[] | undefined) ?? []).some(hasFailedCreate);
}

/**
 * DIFFERENCES.prestateFailedCreateTarget: our accounts that anvil lacks, added to anvil's answer,
 * when a CREATE/CREATE2 of the transaction failed and the account already held code or a nonce.
 */
export function addFailedCreateTargets(theirs: Obj, ours: Obj, failedCreate: boolean): void {
  for (const [address, account] of Object.entries(ours)) {
    if (address in theirs) continue;
    const mine = account as Obj;
    premise(failedCreate && (mine.code !== undefined || mine.nonce !== undefined), DIFFERENCES.prestateFailedCreateTarget, { address, account });
    theirs[address] = clone(mine);
  }
}

/**
 * DIFFERENCES.prestateFailedSstore: drops slots only anvil lists, when the transaction had a
 * frame that ran out of gas (the SSTORE that failed for gas); our slots must all be in anvil's.
 */
export function dropFailedSstoreSlots(theirs: Obj, ours: Obj, outOfGas: boolean): void {
  for (const [address, account] of Object.entries(theirs)) {
    const storage = (account as Obj).storage as Obj | undefined;
    const mine = ((ours[address] as Obj | undefined)?.storage as Obj | undefined) ?? {};
    if (!storage) continue;
    for (const slot of Object.keys(storage)) {
      if (slot in mine) continue;
      premise(outOfGas, DIFFERENCES.prestateFailedSstore, { address, slot });
      delete storage[slot];
    }
    if (Object.keys(storage).length === 0 && !(ours[address] as Obj | undefined)?.storage) delete (account as Obj).storage;
  }
}

/** Drops logs of failed frames and their descendants (DIFFERENCES.callTracerFailedLogs). */
export function dropFailedLogs(frame: Obj, parentFailed = false): void {
  const failed = parentFailed || typeof frame.error === 'string';
  if (failed) delete frame.logs;
  for (const child of (frame.calls as Obj[] | undefined) ?? []) dropFailedLogs(child, failed);
}

/**
 * anvil's halt names → [geth text (or the shape of geth's text, when ours carries details anvil
 * lacks), OpenEthereum text] (DIFFERENCES.anvilHaltNames).
 */
const ANVIL_HALT_NAMES: Record<string, [string | RegExp, string]> = {
  OutOfOffset: ['return data out of bounds', 'Out of bounds'],
  CreateContractSizeLimit: ['max code size exceeded', 'Out of gas'],
  CreateCollision: ['contract address collision', 'Out of gas'],
  StackUnderflow: [/^stack underflow \(\d+ <=> \d+\)$/, 'Stack underflow'],
  StateChangeDuringStaticCall: ['write protection', 'Mutable Call In Static Context'],
  CallNotAllowedInsideStatic: ['write protection', 'Mutable Call In Static Context'],
  'out of gas: out of memory': ['out of gas', 'Out of gas'],
  CreateContractStartingWithEF: ['invalid code: must not begin with 0xef', 'Bad instruction'],
};
const MODEXP = `0x${'5'.padStart(40, '0')}`;

/** geth's texts for the other kinds of error: a failed precompile never says one of these. */
const NOT_PRECOMPILE_TEXTS = new Set(['execution reverted', 'out of gas', 'write protection', 'insufficient balance for transfer', 'max call depth exceeded']);

/** The geth text anvil's `theirs` error stands for, given our frame (undefined: no documented difference). */
function gethTextFor(theirs: Obj, ours: Obj | undefined): string | undefined {
  const error = theirs.error;
  const mine = ours?.error;
  if (typeof error !== 'string' || typeof mine !== 'string' || error === mine) return undefined;
  const known = ANVIL_HALT_NAMES[error];
  const text = !known ? error : typeof known[0] === 'string' ? known[0] : known[0].test(mine) ? mine : undefined;
  if (text === 'return data out of bounds' && mine === 'out of gas') return mine; // DIFFERENCES.returnDataCopyGasOrder
  if (text === 'write protection' && /^out of gas/.test(mine)) return mine; // DIFFERENCES.staticWriteGasOrder
  if (known) return text;
  // DIFFERENCES.gethErrorDetails: geth's texts name what anvil's leave out.
  if (error === 'invalid opcode' && /^invalid opcode: (INVALID|opcode 0x[0-9a-f]+ not defined)$/.test(mine)) return mine;
  if (error === 'out of gas' && mine === 'contract creation code storage out of gas' && ['CREATE', 'CREATE2'].includes(String(theirs.type))) return mine;
  if (error === 'precompiled failed' && theirs.to === MODEXP && mine === 'out of gas') return mine; // DIFFERENCES.modexpLengthOverflow
  if (error === 'precompiled failed' && PRECOMPILES.has(String(theirs.to)) && !NOT_PRECOMPILE_TEXTS.has(mine)) return mine;
  return undefined;
}

function gethErrors(theirs: Obj, ours: Obj | undefined): void {
  const text = gethTextFor(theirs, ours);
  if (text !== undefined) theirs.error = text;
  const myLogs = (ours?.logs as Obj[] | undefined) ?? [];
  for (const [i, log] of ((theirs.logs as Obj[] | undefined) ?? []).entries()) {
    const mine = myLogs[i];
    // DIFFERENCES.callTracerLogIndex (our indices are checked against the receipt by the caller)
    if (mine && log.address === mine.address && log.data === mine.data && JSON.stringify(log.topics) === JSON.stringify(mine.topics)) log.index = mine.index!;
  }
  if (theirs.type === 'SELFDESTRUCT' && ours?.type === 'SELFDESTRUCT' && ours.from === ours.to) {
    // DIFFERENCES.selfdestructToSelf
    theirs.from = ours.from!;
    theirs.to = ours.to!;
    theirs.value = ours.value!;
  }
  const mine = (ours?.calls as Obj[] | undefined) ?? [];
  for (const [i, child] of ((theirs.calls as Obj[] | undefined) ?? []).entries()) gethErrors(child, mine[i]);
}

/**
 * anvil's callTracer with its root `gas` replaced by ours, after checking that anvil's value is
 * the Parity root gas (DIFFERENCES.callTracerRootGas), its root `gasUsed` replaced by the
 * receipt's where it is the cumulative gas (DIFFERENCES.callTracerCumulativeGas), its halt names
 * as geth's texts, then without failed frames' logs.
 */
export function callTracerAsGeth(theirs: Json, ours: Json, parityRootGas: Json, receipt?: { gasUsed: Json; cumulativeGasUsed: Json }): Obj {
  const expected = clone(theirs) as Obj;
  premise(expected.gas === parityRootGas, DIFFERENCES.callTracerRootGas, { anvil: expected.gas, parityRootGas });
  expected.gas = (ours as Obj).gas!;
  if (receipt && expected.gasUsed !== receipt.gasUsed) {
    premise(expected.gasUsed === receipt.cumulativeGasUsed, DIFFERENCES.callTracerCumulativeGas, { anvil: expected.gasUsed, receipt });
    expected.gasUsed = receipt.gasUsed;
  }
  gethErrors(expected, ours as Obj);
  dropFailedLogs(expected);
  return expected;
}

/**
 * anvil's debug_traceCall answer in our conventions: struct logs without empty `refund` and
 * `returnData` (DIFFERENCES.structLogEmptyFields), memory and storage as bare hex
 * (DIFFERENCES.structLogBareHex); a callTracer root's `gas` is the call's `gas`, after checking that
 * anvil's is that less the intrinsic cost charged up front (DIFFERENCES.callTracerRootGas; EIP-7623's
 * floor is charged at the end).
 */
export function tracedCallAsGeth(theirs: Json, call: { data: Uint8Array; gas: bigint }): Obj {
  const expected = clone(theirs) as Obj;
  for (const step of (expected.structLogs as Obj[] | undefined) ?? []) {
    if (step.refund === 0) delete step.refund;
    if (step.returnData === '0x') delete step.returnData;
    if (step.memory) step.memory = (step.memory as string[]).map((word) => word.replace(/^0x/, ''));
    if (step.storage) step.storage = Object.fromEntries(Object.entries(step.storage as Obj).map(([k, v]) => [k.replace(/^0x/, ''), (v as string).replace(/^0x/, '')]));
  }
  if (expected.type !== undefined) {
    const zeros = BigInt(call.data.filter((b) => b === 0).length);
    const intrinsic = 21_000n + 4n * zeros + 16n * (BigInt(call.data.length) - zeros);
    premise(BigInt(expected.gas as string) === call.gas - intrinsic, DIFFERENCES.callTracerRootGas, { anvil: expected.gas, gas: call.gas.toString(), intrinsic: intrinsic.toString() });
    expected.gas = `0x${call.gas.toString(16)}`;
  }
  return expected;
}

function isEmptyAccount(account: Obj): boolean {
  return account.balance === '0x0' && account.nonce === undefined && account.code === undefined;
}

/** DIFFERENCES.prestateEmptyAccounts, applied to anvil's answer. */
export function dropEmptyAccounts(state: Obj): void {
  for (const [address, account] of Object.entries(state)) if (isEmptyAccount(account as Obj)) delete state[address];
}

/** DIFFERENCES.prestateCodeHash, applied to our answer. */
export function dropCodeHash(state: Obj): void {
  for (const account of Object.values(state)) delete (account as Obj).codeHash;
}

export const PRECOMPILES = new Set([...Array.from({ length: 0x11 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`), `0x${'100'.padStart(40, '0')}`]);

/** Removes entries (and their subtrees) and renumbers trace addresses and subtraces. */
export function dropEntries(entries: Entry[], drop: (e: Entry) => boolean): Entry[] {
  let out = entries;
  for (;;) {
    const victim = out.find(drop);
    if (!victim) return out;
    const at = victim.traceAddress;
    const depth = at.length;
    const within = (e: Entry): boolean => e.transactionHash === victim.transactionHash && e.traceAddress.length >= depth && at.every((v, i) => e.traceAddress[i] === v);
    out = out.filter((e) => !within(e));
    for (const e of out) {
      if (e.transactionHash !== victim.transactionHash) continue;
      const isParent = e.traceAddress.length === depth - 1 && e.traceAddress.every((v, i) => v === at[i]);
      if (isParent) e.subtraces -= 1;
      const laterSibling = e.traceAddress.length >= depth && e.traceAddress.slice(0, depth - 1).every((v, i) => v === at[i]) && e.traceAddress[depth - 1]! > at[depth - 1]!;
      if (laterSibling) e.traceAddress = e.traceAddress.map((v, i) => (i === depth - 1 ? v - 1 : v));
    }
  }
}

/** DIFFERENCES.parityPrecompileCalls, .parityPrecheckFailures and .anvilHaltNames, applied to anvil's entries. */
export function normalizeParity(entries: Entry[]): Entry[] {
  const isPrecompileCall = (e: Entry): boolean =>
    e.type === 'call' && PRECOMPILES.has(String(e.action.to)) && e.action.value === '0x0' && e.traceAddress.length > 0 && e.error === undefined && ['call', 'staticcall'].includes(String(e.action.callType));
  const out = dropEntries(dropEntries(entries, isPrecompileCall), (e) => e.error === 'Insufficient balance for transfer');
  for (const e of out) {
    const known = typeof e.error === 'string' ? ANVIL_HALT_NAMES[e.error] : undefined;
    if (known) e.error = known[1];
  }
  return out;
}

/**
 * DIFFERENCES.selfdestructToSelf, .returnDataCopyGasOrder, .staticWriteGasOrder and, for MODEXP, .modexpLengthOverflow on anvil's
 * (already normalised) entries, given ours in the same order.
 */
export function parityAsOurs(theirs: Entry[], ours: Entry[]): Entry[] {
  for (const [i, e] of theirs.entries()) {
    const mine = ours[i];
    if (!mine || JSON.stringify(mine.traceAddress) !== JSON.stringify(e.traceAddress)) continue;
    if (e.type === 'suicide' && mine.type === 'suicide' && mine.action.address === mine.action.refundAddress) e.action = { ...mine.action };
    if (e.type === 'call' && e.action.to === MODEXP && e.error === 'Built-in failed' && mine.error === 'Out of gas') e.error = mine.error;
    if (e.error === 'Out of bounds' && mine.error === 'Out of gas') e.error = mine.error; // DIFFERENCES.returnDataCopyGasOrder
    if (e.error === 'Mutable Call In Static Context' && mine.error === 'Out of gas') e.error = mine.error; // DIFFERENCES.staticWriteGasOrder
  }
  return theirs;
}

/**
 * DIFFERENCES.anvilReplayDropsPrecompiles: anvil's trace_transaction entries (without locators)
 * as its replay's `trace`, after checking that its replay is exactly those entries less every
 * nested call into a precompile.
 */
export function replayTraceFromTransaction(replayTrace: Entry[], transactionEntries: Entry[]): Entry[] {
  const bare = transactionEntries.map(({ blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...e }) => e as Entry);
  const withoutPrecompiles = dropEntries(clone(bare), (e) => e.type === 'call' && PRECOMPILES.has(String(e.action.to)) && e.action.value === '0x0' && e.traceAddress.length > 0);
  premise(isDeepStrictEqual(withoutPrecompiles, replayTrace), DIFFERENCES.anvilReplayDropsPrecompiles, { replayTrace, transactionEntries });
  return bare;
}
