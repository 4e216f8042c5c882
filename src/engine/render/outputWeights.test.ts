// The weights the recorder charges while it records match what the renderers then produce (within
// a few percent, on real runs of our fixtures, for every struct logger option and for vmTrace), and
// a budget that is too small stops the recording with the cap's error.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prepareGethFixture, type GethFixture } from '../execute/gethFixture.js';
import { runRecordedTransaction } from '../execute/runTransaction.js';
import { createStepBudget } from '../record/stepBudget.js';
import type { RecordNeeds, StepBudget } from '../record/types.js';
import { needsOfGethTracer } from './gethTracers.js';
import { needsOfParityTraceTypes } from './parityTraceResults.js';
import { renderParityVmTrace } from './parityVmTrace.js';
import { renderStructLogger, type StructLoggerConfig } from './structLogger.js';
import type { Json } from './types.js';

const FIXTURES = ['callTracer_mixed', 'callTracer_makeAndKill_withLog', 'parityVmTrace_catchRevert', 'prestateTracer_pay', 'structLogger_revertPanic'];
const STRUCT_CONFIGS: StructLoggerConfig[] = [{}, { enableMemory: true, enableReturnData: true }, { disableStack: true, disableStorage: true }, { enableMemory: true, limit: 40 }];

/** A budget that only adds up what it is charged. */
function countingBudget(): StepBudget & { bytes: number } {
  const budget = {
    maxSteps: Infinity,
    maxBytes: Infinity,
    bytes: 0,
    charge(_steps: number, bytes: number) {
      budget.bytes += bytes;
      return undefined;
    },
  };
  return budget;
}

async function weighAndRender(name: string, needsWith: (budget: StepBudget) => RecordNeeds, render: (record: Awaited<ReturnType<typeof runRecordedTransaction>>) => Json) {
  const fixture = JSON.parse(readFileSync(new URL(`../../../fixtures/traces/${name}.json`, import.meta.url), 'utf8')) as GethFixture;
  const { vm, tx, block } = await prepareGethFixture(fixture);
  const budget = countingBudget();
  const record = await runRecordedTransaction({ vm, tx, block }, needsWith(budget));

  return { weighed: budget.bytes, rendered: JSON.stringify(render(record)).length };
}

describe('output weights', () => {
  it('behavior: struct log weights match the rendered size for every option set', async () => {
    for (const name of FIXTURES) {
      for (const config of STRUCT_CONFIGS) {
        const { weighed, rendered } = await weighAndRender(
          name,
          (budget) => needsOfGethTracer({ tracer: 'structLogger', config }, budget),
          (record) => renderStructLogger(record, config),
        );
        // The envelope ({gas, failed, returnValue, structLogs}) is not weighed.
        expect(weighed / rendered, `${name} ${JSON.stringify(config)}: weighed ${weighed}, rendered ${rendered}`).toBeGreaterThan(0.95);
        expect(weighed / rendered, `${name} ${JSON.stringify(config)}`).toBeLessThan(1.05);
      }
    }
  });

  it('behavior: vmTrace weights match the rendered size', async () => {
    for (const name of FIXTURES) {
      const { weighed, rendered } = await weighAndRender(name, (budget) => needsOfParityTraceTypes(['vmTrace'], budget), renderParityVmTrace);
      expect(weighed / rendered, `${name}: weighed ${weighed}, rendered ${rendered}`).toBeGreaterThan(0.95);
      expect(weighed / rendered, name).toBeLessThan(1.05);
    }
  });

  it('error: a recording past its budget stops with the cap named, never a partial record', async () => {
    const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/traces/callTracer_mixed.json', import.meta.url), 'utf8')) as GethFixture;
    for (const [caps, message] of [
      [{ maxBytes: 2000, maxSteps: 1_000_000 }, 'trace output exceeds --trace-max-bytes (2000 bytes)'],
      [{ maxBytes: 64 * 1024 * 1024, maxSteps: 10 }, 'trace exceeds --trace-max-steps (10 steps)'],
    ] as const) {
      const { vm, tx, block } = await prepareGethFixture(fixture);
      const needs = needsOfGethTracer({ tracer: 'structLogger', config: { enableMemory: true } }, createStepBudget(caps));
      await expect(runRecordedTransaction({ vm, tx, block }, needs)).rejects.toMatchObject({ code: -32005, shortMessage: message });
    }
  });
});
