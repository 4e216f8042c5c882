// Differential test of the tracers against the real anvil binary: the same signed transactions
// (fixtures/contracts/TraceProbe.sol scenarios) go to anvil and to the embedded chain, and
// callTracer, prestateTracer (both modes), trace_transaction and trace_block must agree field by
// field, except for the differences in DIFFERENCES below (also in docs/trace-conventions.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedScenario } from '../../engine/trace/testing/traceScenarios.js';
import { rpc } from './testing/chainRpc.js';
import { type Json, type TraceAnvilPair, startTraceAnvilPair } from './testing/traceAnvilPair.js';
type Obj = { [key: string]: Json };
type Entry = Obj & { traceAddress: number[]; subtraces: number; action: Obj; result: Obj | null };

/**
 * Where anvil 1.7.1 (revm-inspectors) and this service deliberately differ, with the reason. Each
 * normaliser rewrites anvil's answer into our convention after checking the premise.
 */
const DIFFERENCES = {
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
  stateDiffBornAccount:
    'stateDiff: an account that did not exist and receives value is `*` from 0x0 with `=` code and nonce in anvil; OpenEthereum (and we) mark it born: `+` balance, `+ 0x0` nonce, `+ 0x` code.',
} as const;

type Diff = { [address: string]: { balance: Json; code: Json; nonce: Json; storage: Json } };

/** Rewrites anvil's "changed from nothing" accounts as born (DIFFERENCES.stateDiffBornAccount). */
function bornAsParity(theirs: Diff, ours: Diff): Diff {
  const out = clone(theirs);
  for (const [address, account] of Object.entries(out)) {
    const mine = ours[address];
    if (!mine || typeof mine.balance !== 'object' || mine.balance === null || !('+' in mine.balance)) continue;
    const changed = (account.balance as { '*'?: { from: string; to: string } })['*'];
    if (!changed) continue;
    expect({ address, from: changed?.from, code: account.code, nonce: account.nonce }, DIFFERENCES.stateDiffBornAccount).toEqual({
      address,
      from: '0x0',
      code: '=',
      nonce: '=',
    });
    out[address] = { balance: { '+': changed.to }, code: { '+': '0x' }, nonce: { '+': '0x0' }, storage: account.storage };
  }
  return out;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Drops logs of failed frames and their descendants (DIFFERENCES.callTracerFailedLogs). */
function dropFailedLogs(frame: Obj, parentFailed = false): void {
  const failed = parentFailed || typeof frame.error === 'string';
  if (failed) delete frame.logs;
  for (const child of (frame.calls as Obj[] | undefined) ?? []) dropFailedLogs(child, failed);
}

function isEmptyAccount(account: Obj): boolean {
  return account.balance === '0x0' && account.nonce === undefined && account.code === undefined;
}

function dropEmptyAccounts(state: Obj): void {
  for (const [address, account] of Object.entries(state)) if (isEmptyAccount(account as Obj)) delete state[address];
}

function dropCodeHash(state: Obj): void {
  for (const account of Object.values(state)) delete (account as Obj).codeHash;
}

const PRECOMPILES = new Set([...Array.from({ length: 0x11 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`), `0x${'100'.padStart(40, '0')}`]);

/** Removes entries (and their subtrees) and renumbers trace addresses and subtraces. */
function dropEntries(entries: Entry[], drop: (e: Entry) => boolean): Entry[] {
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

function normalizeParity(entries: Entry[]): Entry[] {
  const isPrecompileCall = (e: Entry): boolean =>
    e.type === 'call' && PRECOMPILES.has(String(e.action.to)) && e.action.value === '0x0' && e.traceAddress.length > 0 && e.error === undefined && ['call', 'staticcall'].includes(String(e.action.callType));
  return dropEntries(dropEntries(entries, isPrecompileCall), (e) => e.error === 'Insufficient balance for transfer');
}

describe('tracers: differential against anvil', () => {
  let pair: TraceAnvilPair;
  let scenarios: SignedScenario[];
  let hashes: Map<string, string>;
  let both: TraceAnvilPair['both'];

  beforeAll(async () => {
    pair = await startTraceAnvilPair();
    ({ scenarios, hashes, both } = pair);
  }, 60_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it('behavior: callTracer (with logs) matches for every scenario', async () => {
    for (const s of scenarios) {
      const hash = hashes.get(s.name)!;
      const [theirs, ours] = await both('debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
      const [parityRoot] = (await both('trace_transaction', [hash]))[1] as Entry[];
      const expected = clone(theirs) as Obj;
      // DIFFERENCES.callTracerRootGas: anvil's root gas is exactly our Parity root gas (limit minus intrinsic).
      expect({ scenario: s.name, gas: expected.gas }, DIFFERENCES.callTracerRootGas).toEqual({ scenario: s.name, gas: parityRoot!.action.gas });
      expected.gas = (ours as Obj).gas!;
      dropFailedLogs(expected);
      expect({ scenario: s.name, trace: ours }, DIFFERENCES.callTracerFailedLogs).toEqual({ scenario: s.name, trace: expected });
    }
  });

  it('behavior: prestateTracer matches in default and diff mode', async () => {
    for (const s of scenarios) {
      const hash = hashes.get(s.name)!;
      const [theirs, ours] = await both('debug_traceTransaction', [hash, { tracer: 'prestateTracer' }]);
      const expected = clone(theirs) as Obj;
      dropEmptyAccounts(expected);
      const actual = clone(ours) as Obj;
      dropCodeHash(actual);
      expect({ scenario: s.name, prestate: actual }, `${DIFFERENCES.prestateEmptyAccounts} ${DIFFERENCES.prestateCodeHash}`).toEqual({
        scenario: s.name,
        prestate: expected,
      });

      const [theirDiff, ourDiff] = await both('debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
      const expectedDiff = clone(theirDiff) as { pre: Obj; post: Obj };
      dropEmptyAccounts(expectedDiff.pre);
      const actualDiff = clone(ourDiff) as { pre: Obj; post: Obj };
      dropCodeHash(actualDiff.pre);
      dropCodeHash(actualDiff.post);
      expect({ scenario: s.name, diff: actualDiff }, `${DIFFERENCES.prestateEmptyAccounts} ${DIFFERENCES.prestateCodeHash}`).toEqual({
        scenario: s.name,
        diff: expectedDiff,
      });
    }
  });

  async function withOwnBlockHashes(entries: Entry[], side: 'anvil' | 'ours'): Promise<Entry[]> {
    for (const e of entries) {
      const params = [`0x${Number(e.blockNumber).toString(16)}`, false];
      const block = side === 'anvil' ? await pair.anvilRpc('eth_getBlockByNumber', params) : await rpc(pair.table, 'eth_getBlockByNumber', params);
      expect('result' in block && (block.result as Obj).hash, DIFFERENCES.blockHash).toBe(e.blockHash);
      e.blockHash = 'own block hash';
    }
    return entries;
  }

  it('behavior: trace_transaction matches for every scenario', async () => {
    for (const s of scenarios) {
      const [theirs, ours] = await both('trace_transaction', [hashes.get(s.name)!]);
      const expected = normalizeParity(await withOwnBlockHashes(clone(theirs) as Entry[], 'anvil'));
      const actual = await withOwnBlockHashes(clone(ours) as Entry[], 'ours');
      expect({ scenario: s.name, trace: actual }, `${DIFFERENCES.parityPrecompileCalls} ${DIFFERENCES.parityPrecheckFailures}`).toEqual({
        scenario: s.name,
        trace: expected,
      });
    }
  });

  it('behavior: trace_replayBlockTransactions (trace and stateDiff) matches for every block', async () => {
    const head = Number(pair.temp.chain.headNumber());
    for (let n = 1; n <= head; n++) {
      const block = `0x${n.toString(16)}`;
      const [theirs, ours] = (await both('trace_replayBlockTransactions', [block, ['trace', 'stateDiff']])) as [Obj[], Obj[]];
      const expected = theirs.map((r, i) => ({
        ...r,
        trace: normalizeParity(r.trace as Entry[]),
        stateDiff: bornAsParity(r.stateDiff as Diff, ours[i]!.stateDiff as Diff),
      }));
      expect({ block, replay: ours }, `${DIFFERENCES.parityPrecompileCalls} ${DIFFERENCES.parityPrecheckFailures}`).toEqual({ block, replay: expected });
    }
  });

  it('behavior: vmTrace agrees on every op (pc, op, cost, gas left, pushes, nesting)', async () => {
    type Op = { pc: number; op: string; cost: number; ex: { used: number; push: string[] } | null; sub: Trace | null };
    type Trace = { code: string; ops: Op[] };
    const OPENS_FRAME = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);
    /**
     * One line per op with what both sides define the same way (DIFFERENCES.vmTraceAnvilGaps);
     * anvil's `used` is moved after the op, and where our op halted (`ex: null`) `ex` is skipped.
     */
    const rows = (theirs: Trace | null, ours: Trace | null, path: string, out: [string[], string[]]): void => {
      const n = Math.max(theirs?.ops.length ?? 0, ours?.ops.length ?? 0);
      for (let i = 0; i < n; i++) {
        const [a, b] = [theirs?.ops[i], ours?.ops[i]];
        const halted = b !== undefined && !b.ex;
        const skipEx = halted || !b || OPENS_FRAME.has(b.op);
        const line = (o: Op | undefined, shift: boolean): string =>
          o
            ? `${path}[${i}] pc=${o.pc} ${o.op}${halted ? '' : ` cost=${o.cost}`}${skipEx || !o.ex ? '' : ` used=${o.ex.used - (shift ? o.cost : 0)} push=${o.ex.push.join(',')}`}`
            : `${path}[${i}] (none)`;
        out[0].push(line(a, true));
        out[1].push(line(b, false));
        const [subA, subB] = [a?.sub?.ops.length ? a.sub : null, b?.sub?.ops.length ? b.sub : null];
        if (subA || subB) rows(subA, subB, `${path}[${i}]`, out);
      }
    };
    let ops = 0;
    for (let n = 1; n <= Number(pair.temp.chain.headNumber()); n++) {
      const [theirs, ours] = (await both('trace_replayBlockTransactions', [`0x${n.toString(16)}`, ['vmTrace']])) as [Obj[], Obj[]];
      const lines: [string[], string[]] = [[], []];
      rows(theirs[0]!.vmTrace as Trace, ours[0]!.vmTrace as Trace, `block ${n}`, lines);
      expect(lines[1], DIFFERENCES.vmTraceUsed).toEqual(lines[0]);
      ops += lines[1].length;
    }
    expect(ops).toBeGreaterThan(10_000);
  });

  it('behavior: trace_block and debug_traceBlockByNumber match for every block', async () => {
    const head = Number(pair.temp.chain.headNumber());
    for (let n = 1; n <= head; n++) {
      const block = `0x${n.toString(16)}`;
      const [theirs, ours] = await both('trace_block', [block]);
      expect({ block, trace: await withOwnBlockHashes(clone(ours) as Entry[], 'ours') }).toEqual({
        block,
        trace: normalizeParity(await withOwnBlockHashes(clone(theirs) as Entry[], 'anvil')),
      });
      const [theirCalls, ourCalls] = await both('debug_traceBlockByNumber', [block, { tracer: 'callTracer' }]);
      const expected = clone(theirCalls) as { txHash: string; result: Obj }[];
      const actual = ourCalls as { txHash: string; result: Obj }[];
      expect(actual.map((t) => t.txHash)).toEqual(expected.map((t) => t.txHash));
      for (let i = 0; i < expected.length; i++) expected[i]!.result.gas = actual[i]!.result.gas!;
      expect({ block, calls: actual }).toEqual({ block, calls: expected });
    }
  });
});
