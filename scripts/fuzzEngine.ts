// The engine's differential fuzzer, long runs: generated programs on the synchronous interpreter
// and on ethereumjs, compared (src/engine/interpreter/testing/differential.ts).
// Usage: npm run fuzz:engine -- [--cases N] [--seed S] [--hardfork prague|cancun] [--steps]
// (--steps: the records carry every step field too, struct logs' and vmTrace's, up to 400 steps)
import { parseArgs } from 'node:util';
import { ALL_STEPS, createFuzzVm, fuzz } from '../src/engine/interpreter/testing/differential.js';

const { values } = parseArgs({
  options: { cases: { type: 'string', default: '20000' }, seed: { type: 'string', default: String(Date.now() % 1e9) }, hardfork: { type: 'string', default: 'prague' }, steps: { type: 'boolean', default: false } },
});
const cases = Number(values.cases);
const seed = Number(values.seed);
const vm = await createFuzzVm(values.hardfork);
const started = performance.now();
const result = await fuzz(vm, seed, cases, 20, values.steps ? ALL_STEPS : undefined);
const seconds = (performance.now() - started) / 1000;
console.log(`hardfork ${values.hardfork}, seeds ${seed}..${seed + cases - 1}: ${result.equal} equal, ${result.fallback} ran on ethereumjs (unsupported), ${result.mismatches.length} mismatches, ${result.restarts} state-load restarts, ${seconds.toFixed(1)} s`);
console.log('ran on ethereumjs because:', Object.fromEntries(result.fallbackReasons));
for (const m of result.mismatches) console.log(`seed ${m.seed}: ${m.detail}`);
process.exitCode = result.mismatches.length ? 1 : 0;
