// vmTrace invariants that hold for any execution, checked on real runs of our fixtures: each op's
// `used` (gas left after it) is the previous op's minus its cost, except where a child frame
// returned unused gas; pushes match the opcode; SSTORE ops carry their store pair.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prepareGethFixture, type GethFixture } from '../execute/gethFixture.js';
import { runRecordedTransaction } from '../execute/runTransaction.js';
import { needsOfParityTraceTypes } from './parityTraceResults.js';
import { renderParityVmTrace } from './parityVmTrace.js';

interface Op {
  cost: number;
  ex: { used: number; push: string[]; mem: { off: number; data: string } | null; store: { key: string; val: string } | null } | null;
  pc: number;
  op: string;
  sub: VmTrace | null;
}
interface VmTrace {
  code: string;
  ops: Op[];
}

const CALLS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2']);

function check(trace: VmTrace, startGas: number | undefined, path: string): number {
  let checked = 0;
  let prev = startGas;
  for (const [i, op] of trace.ops.entries()) {
    const where = `${path}[${i}] ${op.op}`;
    if (op.ex && prev !== undefined && !CALLS.has(op.op)) {
      expect(op.ex.used, where).toBe(prev - op.cost);
      checked++;
    }
    if (op.ex && op.op.startsWith('PUSH')) expect(op.ex.push, where).toHaveLength(1);
    if (op.ex && op.op === 'SSTORE') expect(op.ex.store, where).not.toBeNull();
    if (op.ex && op.op === 'MSTORE') expect(op.ex.mem?.data.length, where).toBe(66);
    if (op.sub) checked += check(op.sub, undefined, `${where}.sub`);
    prev = op.ex?.used;
  }
  return checked;
}

describe('renderParityVmTrace', () => {
  it('behavior: gas, push, memory and storage effects are consistent op by op', async () => {
    let checked = 0;
    for (const name of ['parityVmTrace_catchRevert', 'callTracer_makeAndKill_withLog', 'callTracer_mixed']) {
      const fixture = JSON.parse(readFileSync(new URL(`../../../fixtures/traces/${name}.json`, import.meta.url), 'utf8')) as GethFixture;
      const { vm, tx, block } = await prepareGethFixture(fixture);
      const record = await runRecordedTransaction({ vm, tx, block }, needsOfParityTraceTypes(['vmTrace']));
      const trace = renderParityVmTrace(record) as unknown as VmTrace;
      const rootGas = Number(record.frames[0]!.gas);
      expect(trace.ops[0]!.ex!.used).toBe(rootGas - trace.ops[0]!.cost);
      checked += check(trace, rootGas, name);
      expect(trace.ops.filter((op) => op.sub).length).toBeGreaterThan(0);
    }
    expect(checked).toBeGreaterThan(500);
  });
});
