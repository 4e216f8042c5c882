// `npm run fuzz:traces -- [--runs N] [--seed S] [--survey] [--hardfork prague|osaka]`: the trace
// fuzzer's long run. Generates programs (src/backends/embedded/testing/fuzzProgramArbitrary.ts),
// runs each on anvil and on the embedded chain, both on the hardfork (Prague unless named), and
// compares the traces and each transaction's eth_estimateGas (fuzzTraceRunner.ts). By default stops at the first difference and prints the
// shrunk program; --survey runs every program without shrinking and prints each failing one, then a
// count per check. Exits 1 when any program failed.
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { programText } from '../src/backends/embedded/testing/fuzzProgram.js';
import { programArb } from '../src/backends/embedded/testing/fuzzProgramArbitrary.js';
import { type FuzzPair, mismatchText, runProgram, startFuzzPair } from '../src/backends/embedded/testing/fuzzTraceRunner.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '200' }, seed: { type: 'string' }, survey: { type: 'boolean', default: false }, hardfork: { type: 'string', default: 'prague' } },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
console.log(`fuzz:traces: ${runs} programs, seed ${seed}, ${values.hardfork}${values.survey ? ', survey' : ''}`);

let pair: FuzzPair = await startFuzzPair(values.hardfork);
const started = performance.now();
let failed = 0;
try {
  if (values.survey) {
    const counts = new Map<string, number>();
    for (const [i, program] of fc.sample(programArb, { numRuns: runs, seed }).entries()) {
      let text: string;
      try {
        const mismatches = await runProgram(pair, program);
        if (mismatches.length === 0) continue;
        for (const check of new Set(mismatches.map((m) => m.check))) counts.set(check, (counts.get(check) ?? 0) + 1);
        text = mismatchText(mismatches);
      } catch (error) {
        counts.set('error', (counts.get('error') ?? 0) + 1);
        text = String(error);
        // A program the chains disagreed on leaves them apart: start over.
        await pair.stop();
        pair = await startFuzzPair(values.hardfork);
      }
      failed++;
      console.log(`\n=== program ${i} ===\n${programText(program)}\n--- differences ---\n${text}`);
    }
    console.log(`\nfailing programs per check: ${JSON.stringify(Object.fromEntries(counts))}`);
  } else {
    const details = await fc.check(
      fc.asyncProperty(programArb, async (program) => {
        const mismatches = await runProgram(pair, program);
        if (mismatches.length > 0) throw new Error(mismatchText(mismatches));
      }),
      { numRuns: runs, seed },
    );
    if (details.failed) {
      failed = 1;
      const [program] = details.counterexample!;
      console.log(`\nfailed after ${details.numRuns} programs (${details.numShrinks} shrinks); reproduce with --seed ${seed}`);
      console.log(`shrunk program:\n${programText(program)}\n--- differences ---\n${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`);
    }
  }
} finally {
  await pair.stop();
}
console.log(`\n${runs} programs in ${((performance.now() - started) / 1000).toFixed(0)} s, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
