// Differential test of the default struct logger against anvil started with --steps-tracing: the
// same signed transactions must give the same opcode steps (pc, op, gas, cost, depth, stack,
// memory, storage, return data, refund) except for the formatting differences below (also in
// docs/trace-conventions.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type TraceAnvilPair, startTraceAnvilPair } from './testing/traceAnvilPair.js';

type Step = { [key: string]: Json };

const DIFFERENCES = {
  zeroFields: 'anvil prints `refund: 0` and `returnData: "0x"` on every step; geth (and we) leave empty fields out (omitempty).',
  wordPrefix: 'anvil prefixes memory words and storage keys/values with 0x; geth (and we) print them as bare 64-digit hex.',
  createCost: "CREATE/CREATE2 `gasCost`: anvil adds the gas handed to the new frame; geth (and we) report the opcode's own cost.",
  failedStep:
    'The step that fails for gas: anvil prints the revm status (`Some(OutOfGas)`), a different cost and, for SSTORE, the slot before the write; geth (and we) print geth\'s error text, the cost that did not fit and the value being written.',
} as const;

/** anvil's revm status texts and geth's texts for the same failures. */
const GETH_ERROR_TEXT: Record<string, string> = {
  'Some(OutOfGas)': 'out of gas',
  'Some(ReentrancySentryOOG)': 'out of gas: not enough gas for reentrancy sentry',
};

const bare = (word: Json): Json => (typeof word === 'string' ? word.replace(/^0x/, '') : word);

/** Rewrites anvil's step into geth's formatting (DIFFERENCES.zeroFields, wordPrefix). */
function gethFormatted(step: Step): Step {
  const out: Step = { ...step };
  if (out.refund === 0) delete out.refund;
  if (out.returnData === '0x') delete out.returnData;
  if (Array.isArray(out.memory)) out.memory = out.memory.map(bare);
  if (out.storage && typeof out.storage === 'object') {
    out.storage = Object.fromEntries(Object.entries(out.storage as Record<string, Json>).map(([k, v]) => [bare(k) as string, bare(v)]));
  }
  return out;
}

describe('struct logger: differential against anvil --steps-tracing', () => {
  let pair: TraceAnvilPair;

  beforeAll(async () => {
    pair = await startTraceAnvilPair(['--steps-tracing']);
  }, 60_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it('behavior: every opcode step matches for every scenario', async () => {
    for (const s of pair.scenarios) {
      const options = { enableMemory: true, enableReturnData: true };
      const [theirs, ours] = (await pair.both('debug_traceTransaction', [pair.hashes.get(s.name)!, options])) as [
        { structLogs: Step[] } & Step,
        { structLogs: Step[] } & Step,
      ];
      expect({ scenario: s.name, gas: ours.gas, failed: ours.failed, returnValue: ours.returnValue }).toEqual({
        scenario: s.name,
        gas: theirs.gas,
        failed: theirs.failed,
        returnValue: theirs.returnValue,
      });
      expect(ours.structLogs.length, s.name).toBe(theirs.structLogs.length);
      for (let i = 0; i < ours.structLogs.length; i++) {
        const expected = gethFormatted(theirs.structLogs[i]!);
        const actual = { ...ours.structLogs[i]! };
        if (expected.op === 'CREATE' || expected.op === 'CREATE2') {
          expect(Number(expected.gasCost), DIFFERENCES.createCost).toBeGreaterThan(Number(actual.gasCost));
          expected.gasCost = actual.gasCost!;
        }
        if (expected.error !== undefined) {
          expect(actual.error, DIFFERENCES.failedStep).toBe(GETH_ERROR_TEXT[String(expected.error)]);
          expected.error = actual.error!;
          expected.gasCost = actual.gasCost!;
          if (expected.op === 'SSTORE') expected.storage = actual.storage!;
        }
        expect({ scenario: s.name, step: i, log: actual }, `${DIFFERENCES.zeroFields} ${DIFFERENCES.wordPrefix}`).toEqual({ scenario: s.name, step: i, log: expected });
      }
    }
  });
});
