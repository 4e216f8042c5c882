// Property test of the tracers against the real anvil binary on generated programs
// (testing/fuzzProgramArbitrary.ts): contracts and transactions nobody wrote by hand, run on both
// with the same signed transactions, compared field by field by testing/fuzzTraceRunner.ts after
// the documented DIFFERENCES (testing/traceDifferences.ts). The long run is `npm run fuzz:traces`.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { programText } from './testing/fuzzProgram.js';
import { programArb } from './testing/fuzzProgramArbitrary.js';
import { type FuzzPair, mismatchText, runProgram, startFuzzPair } from './testing/fuzzTraceRunner.js';

/** Programs per `npm test` run, from a fixed seed (TRACE_FUZZ_SEED overrides it) so the suite is repeatable. */
const RUNS = 50;
const SEED = Number(process.env.TRACE_FUZZ_SEED ?? 20261121);

describe('tracers: generated programs against anvil', () => {
  let pair: FuzzPair;

  beforeAll(async () => {
    pair = await startFuzzPair();
  }, 60_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it('behavior: receipts, callTracer, prestateTracer, trace_transaction, trace_replayTransaction and eth_estimateGas agree on every program', async () => {
    const before = pair.runs;
    await fc.assert(
      fc.asyncProperty(programArb, async (program) => {
        const mismatches = await runProgram(pair, program);
        if (mismatches.length > 0) throw new Error(mismatchText(mismatches));
      }),
      { numRuns: RUNS, seed: SEED, interruptAfterTimeLimit: 90_000, reporter: (details) => {
        if (!details.failed) return;
        const [program] = details.counterexample!;
        throw new Error(`trace fuzzer: failed after ${details.numRuns} programs (seed ${details.seed}, ${details.numShrinks} shrinks); shrunk program:\n${programText(program)}\n--- differences ---\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
      } },
    );
    expect(pair.runs - before).toBeGreaterThanOrEqual(RUNS);
  }, 120_000);
});
