// The differential fuzzer: one generated case (contracts, storage, a call or create transaction)
// runs on the interpreter (with its built-in recorder) and on ethereumjs (with the recorder attached)
// in the same process, over the same state; gas used, refund, return data, error, logs, created
// address, the touched accounts' balances, nonces, code and storage, and the whole ExecutionRecord
// (every frame, log, touched account and slot with pre/post values, the tx figures) must be equal.
// ethereumjs is the reference.
import { type Block, createBlock } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx, type TypedTransaction } from '@ethereumjs/tx';
import { Account, Address, bigIntToBytes, bytesToBigInt, bytesToHex, setLengthLeft } from '@ethereumjs/util';
import { SimpleStateManager } from '@ethereumjs/statemanager';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { impersonate } from '../../chain/transactionRequest.js';
import { attachRecorder } from '../../record/createRecorder.js';
import type { ExecutionRecord, RecordNeeds, StepNeeds } from '../../record/types.js';
import { callFieldsOf } from '../callFields.js';
import { runFastCall, type FastCallOutcome } from '../fastCall.js';
import { runFastRecorded } from '../fastTrace.js';
import { addressBytes } from '../interpreter.js';
import { COINBASE, CONTRACTS, DELEGATED, Rng, SENDER, generateProgram } from './programs.js';

export interface FuzzVm {
  vm: VM;
  hardfork: string;
}

export async function createFuzzVm(hardfork: string = Hardfork.Prague): Promise<FuzzVm> {
  const common = new Common({ chain: Mainnet, hardfork });
  // An in-memory state manager without a trie: the same reads, none of the hashing.
  return { vm: await createVM({ common, stateManager: new SimpleStateManager({ common }) }), hardfork };
}

export type CaseResult = { kind: 'equal'; restarts: number } | { kind: 'fallback'; reason: string } | { kind: 'mismatch'; seed: number; detail: string };

function address(a: bigint): Address {
  return new Address(addressBytes(a));
}

function word(v: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(v), 32);
}

function hex(b: Uint8Array | undefined): string {
  return b === undefined ? 'undefined' : bytesToHex(b);
}

function randomBytes(rng: Rng, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.chance(0.4) ? 0 : rng.int(256);
  return out;
}

function buildBlock(rng: Rng, vm: VM): Block {
  return createBlock(
    {
      header: {
        number: 1000n + BigInt(rng.int(1000)),
        timestamp: 1_700_000_000n + BigInt(rng.int(1000)),
        gasLimit: 30_000_000n,
        baseFeePerGas: rng.chance(0.5) ? 0n : BigInt(rng.int(20)),
        coinbase: address(COINBASE),
        mixHash: randomBytes(rng, 32),
        excessBlobGas: 0n,
        blobGasUsed: 0n,
        parentBeaconBlockRoot: new Uint8Array(32),
        requestsHash: vm.common.gteHardfork(Hardfork.Prague) ? new Uint8Array(32) : undefined,
      },
    },
    { common: vm.common, setHardfork: false, skipConsensusFormatValidation: true },
  );
}

function buildTx(rng: Rng, vm: VM, block: Block, data: Uint8Array, create: boolean): TypedTransaction {
  const baseFee = block.header.baseFeePerGas ?? 0n;
  const gasLimit = rng.pick([30_000n + BigInt(rng.int(40_000)), 100_000n, 300_000n, 1_000_000n, 21_000n + BigInt(rng.int(60_000))]);
  const value = rng.chance(0.7) ? 0n : BigInt(rng.int(10_000));
  const to = create ? undefined : address(rng.chance(0.2) ? DELEGATED[0]! : CONTRACTS[0]!);
  const accessList = rng.chance(0.3) ? [{ address: bytesToHex(addressBytes(rng.pick(CONTRACTS))), storageKeys: [bytesToHex(word(BigInt(rng.int(4))))] }] : [];
  const common = vm.common;
  const tx = rng.chance(0.5)
    ? createFeeMarket1559Tx(
        { nonce: 0n, gasLimit, to, value, data, maxFeePerGas: baseFee + 3n + BigInt(rng.int(5)), maxPriorityFeePerGas: BigInt(rng.int(3)), accessList, chainId: common.chainId() },
        { common, freeze: false },
      )
    : createLegacyTx({ nonce: 0n, gasLimit, to, value, data, gasPrice: baseFee + BigInt(rng.int(3)) }, { common, freeze: false });
  return impersonate(tx, address(SENDER));
}

/**
 * Every step field recorded (struct logs' and vmTrace's), at most 400 steps per case (enableMemory
 * on a long loop would hold gigabytes).
 */
export const ALL_STEPS: StepNeeds = { stack: true, memory: true, returnData: true, storage: true, effects: true, limit: 400 };

/**
 * Runs case `seed`: sets the state up in a checkpoint, runs both engines, compares, reverts. With
 * `steps`, both records carry the opcode steps too.
 */
export async function runCase(fuzz: FuzzVm, seed: number, steps?: StepNeeds): Promise<CaseResult> {
  const { vm } = fuzz;
  const rng = new Rng(seed);
  const sm = vm.stateManager;
  await sm.checkpoint();
  try {
    await sm.putAccount(address(SENDER), new Account(BigInt(rng.int(5)), 10n ** 24n));
    for (const c of CONTRACTS) {
      if (rng.chance(0.1)) continue;
      await sm.putAccount(address(c), new Account(1n, rng.chance(0.5) ? 0n : BigInt(rng.int(100_000))));
      await sm.putCode(address(c), generateProgram(rng, 4 + rng.int(40)));
      for (let slot = 0n; slot < 4n; slot++) if (rng.chance(0.5)) await sm.putStorage(address(c), word(slot), bigIntToBytes(BigInt(1 + rng.int(5))));
    }
    // EIP-7702 designators: to a contract, a precompile, another delegated account (not followed),
    // an EOA, or an address with nothing there.
    for (const d of DELEGATED) {
      if (rng.chance(0.2)) continue;
      const target = rng.pick([rng.pick(CONTRACTS), rng.pick(CONTRACTS), BigInt(1 + rng.int(9)), rng.pick(DELEGATED), SENDER, (0xdfn << 152n) | BigInt(rng.int(4))]);
      await sm.putAccount(address(d), new Account(BigInt(rng.int(3)), rng.chance(0.5) ? 0n : BigInt(rng.int(100_000))));
      await sm.putCode(address(d), Uint8Array.from([0xef, 0x01, 0x00, ...addressBytes(target)]));
      for (let slot = 0n; slot < 4n; slot++) if (rng.chance(0.3)) await sm.putStorage(address(d), word(slot), bigIntToBytes(BigInt(1 + rng.int(5))));
    }
    const block = buildBlock(rng, vm);
    const create = rng.chance(0.15);
    const data = create ? generateProgram(rng, 4 + rng.int(30)) : randomBytes(rng, rng.int(80));
    const tx = buildTx(rng, vm, block, data, create);

    let reason = '';
    const needs: RecordNeeds = { state: true, steps };
    const onFallback = (r: string): void => void (reason = r);
    // The core gets the transaction's fields (intrinsic gas and floor are its own; ethereumjs runs the object).
    const fields = callFieldsOf(tx);
    const recorded = await runFastRecorded({ vm, tx: fields, from: address(SENDER), block, needs, onFallback });
    // Halts the built-in recorder hands over (geth's gas-first errors) still compare as executions.
    const fast = recorded.record ? recorded.outcome : (reason.includes('gas-first') ? await runFastCall({ vm, tx: fields, from: address(SENDER), block, onFallback }) : undefined);
    await sm.checkpoint();
    let detail: string | undefined;
    try {
      const recorder = attachRecorder(vm, needs);
      let record: ExecutionRecord | undefined;
      const reference = await (async () => {
        await recorder.start(tx, block);
        const result = await runTx(vm, { tx, block, skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true });
        record = await recorder.finish(result);
        return result;
      })()
        .catch((e: Error) => e)
        .finally(() => recorder.detach());
      if (fast === undefined) return { kind: 'fallback', reason };
      if (reference instanceof Error) detail = `ethereumjs threw ${reference.message}`;
      else detail = (await compare(vm, fast, reference)) ?? (recorded.record ? compareRecords(recorded.record, record!) : undefined);
    } finally {
      await sm.revert();
    }
    if (detail !== undefined) return { kind: 'mismatch', seed, detail };
    return { kind: 'equal', restarts: fast!.restarts };
  } finally {
    await sm.revert();
  }
}

type Reference = Awaited<ReturnType<typeof runTx>>;

/** A record as plain JSON values (bytes as hex, bigints as decimal, Maps as objects), undefined fields dropped. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return bytesToHex(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** The first path at which two plain values differ. */
function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (a === b) return undefined;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      const d = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
      if (d) return d;
    }
    return undefined;
  }
  return `${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

/** The interpreter's ExecutionRecord against the ethereumjs recorder's: frames, logs, touched state, tx figures. */
export function compareRecords(fast: ExecutionRecord, reference: ExecutionRecord): string | undefined {
  return firstDifference(plain(fast), plain(reference), 'record');
}

async function compare(vm: VM, fast: FastCallOutcome, ref: Reference): Promise<string | undefined> {
  const diffs: string[] = [];
  const ex = ref.execResult;
  if (fast.error !== ex.exceptionError?.error) diffs.push(`error ${fast.error} vs ${ex.exceptionError?.error}`);
  if (fast.gasUsed !== ref.totalGasSpent) diffs.push(`gasUsed ${fast.gasUsed} vs ${ref.totalGasSpent}`);
  if (fast.gasRefund !== (ref.gasRefund ?? 0n)) diffs.push(`gasRefund ${fast.gasRefund} vs ${ref.gasRefund}`);
  if (hex(fast.returnValue) !== hex(ex.returnValue)) diffs.push(`returnValue ${hex(fast.returnValue)} vs ${hex(ex.returnValue)}`);
  const refCreated = ref.createdAddress && !ex.exceptionError ? bytesToBigInt(ref.createdAddress.bytes) : undefined;
  if (fast.createdAddress !== refCreated) diffs.push(`createdAddress ${fast.createdAddress} vs ${refCreated}`);
  const refLogs = (ex.logs ?? []).map(([a, topics, data]) => `${hex(a)}:${topics.map(hex).join(',')}:${hex(data)}`);
  const fastLogs = fast.logs.map((l) => `${hex(addressBytes(l.address))}:${l.topics.map((t) => hex(word(t))).join(',')}:${hex(l.data)}`);
  if (refLogs.join('|') !== fastLogs.join('|')) diffs.push(`logs ${fastLogs.join('|')} vs ${refLogs.join('|')}`);
  const world = fast.world;
  const sm = vm.stateManager;
  for (const account of world.touched()) {
    const a = account.address;
    if (world.destructed.has(a) && world.created.has(a)) continue;
    const refAccount = await sm.getAccount(address(a));
    if (a !== SENDER && a !== COINBASE) {
      if (account.balance !== (refAccount?.balance ?? 0n)) diffs.push(`balance of ${a.toString(16)}: ${account.balance} vs ${refAccount?.balance}`);
      if (account.nonce !== (refAccount?.nonce ?? 0n)) diffs.push(`nonce of ${a.toString(16)}: ${account.nonce} vs ${refAccount?.nonce}`);
    }
    if (account.code !== undefined && refAccount !== undefined) {
      const code = await sm.getCode(address(a));
      if (hex(code) !== hex(account.code)) diffs.push(`code of ${a.toString(16)}: ${hex(account.code)} vs ${hex(code)}`);
    }
    const slots = new Set([...account.storage.keys(), ...account.original.keys()]);
    for (const slot of slots) {
      const value = world.sload(account, slot);
      const raw = refAccount === undefined ? new Uint8Array(0) : await sm.getStorage(address(a), word(slot));
      const refValue = raw.length === 0 ? 0n : bytesToBigInt(raw);
      if (value !== refValue) diffs.push(`storage ${a.toString(16)}[${slot}]: ${value} vs ${refValue}`);
    }
  }
  return diffs.length ? diffs.join('; ') : undefined;
}

/** Runs `count` cases from `firstSeed`; returns counts and the first mismatches. */
export async function fuzz(fuzzVm: FuzzVm, firstSeed: number, count: number, maxMismatches = 10, steps?: StepNeeds) {
  let equal = 0;
  let fallback = 0;
  let restarts = 0;
  const fallbackReasons = new Map<string, number>();
  const mismatches: { seed: number; detail: string }[] = [];
  for (let seed = firstSeed; seed < firstSeed + count; seed++) {
    const result = await runCase(fuzzVm, seed, steps);
    if (result.kind === 'equal') {
      equal++;
      restarts += result.restarts;
    } else if (result.kind === 'fallback') {
      fallback++;
      fallbackReasons.set(result.reason, (fallbackReasons.get(result.reason) ?? 0) + 1);
    }
    else {
      mismatches.push({ seed: result.seed, detail: result.detail });
      if (mismatches.length >= maxMismatches) break;
    }
  }
  return { equal, fallback, fallbackReasons, restarts, mismatches };
}
