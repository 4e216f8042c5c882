// Differential test of the tracers against the real anvil binary: the same signed transactions
// (fixtures/contracts/TraceProbe.sol scenarios) go to anvil and to the embedded chain, and
// callTracer, prestateTracer (both modes), trace_transaction and trace_block must agree field by
// field, except for the differences in DIFFERENCES (testing/traceDifferences.ts, also in
// docs/trace-conventions.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedScenario } from '../../engine/trace/testing/traceScenarios.js';
import { rpc } from './testing/chainRpc.js';
import { DIFFERENCES, type Diff, type Entry, type Obj, bornAsParity, clone, dropCodeHash, dropEmptyAccounts, dropFailedLogs, normalizeParity } from './testing/traceDifferences.js';
import { type TraceAnvilPair, startTraceAnvilPair } from './testing/traceAnvilPair.js';

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

  it("behavior: eth_estimateGas of every scenario's transaction, on the state before it, equals anvil's", async () => {
    // Nested calls and creates, reverts caught by the caller, value calls, SSTOREs: the interpreter's
    // guess of the limit (gasNeed.ts) must land where anvil's bisection does. A revert answers the
    // same code and data (the texts are geth's, docs/trace-conventions.md).
    let estimated = 0;
    for (const s of scenarios) {
      const tx = (await both('eth_getTransactionByHash', [hashes.get(s.name)!]))[1] as Obj & { from: string; to: string | null; input: string; value: string; blockNumber: string; transactionIndex: string };
      if (tx.transactionIndex !== '0x0') continue;
      const request = { from: tx.from, ...(tx.to ? { to: tx.to } : {}), data: tx.input, value: tx.value };
      const before = `0x${(Number(tx.blockNumber) - 1).toString(16)}`;
      const theirs = (await pair.anvilRpc('eth_estimateGas', [request, before])) as { result?: string; error?: { code: number; data?: string } };
      const ours = (await rpc(pair.table, 'eth_estimateGas', [request, before])) as { result?: string; error?: { code: number; data?: string } };
      if (s.name === 'catchOutOfGas') {
        expect(BigInt(ours.result!), DIFFERENCES.estimateLowerBound).toBeGreaterThan(BigInt(theirs.result!));
        continue;
      }
      const shape = (a: typeof ours) => ({ scenario: s.name, result: a.result, code: a.error?.code, data: a.error?.data });
      expect(shape(ours)).toEqual(shape(theirs));
      estimated++;
    }
    expect(estimated).toBeGreaterThan(10);
  });
});
