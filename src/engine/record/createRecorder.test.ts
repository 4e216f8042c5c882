// The recorder observes and never steers: execution with every recording on must end exactly as
// without it, and the EVM's opcode table is restored afterwards.
import { readFileSync, readdirSync } from 'node:fs';
import type { EVM } from '@ethereumjs/evm';
import { runTx } from '@ethereumjs/vm';
import { describe, expect, it } from 'vitest';
import { prepareGethFixture, type GethFixture } from '../execute/gethFixture.js';
import { attachRecorder } from './createRecorder.js';
import type { RecordNeeds } from './types.js';

const dir = new URL('../../../fixtures/traces/', import.meta.url);
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as GethFixture);
const EVERYTHING: RecordNeeds = { state: true, steps: { stack: true, memory: true, returnData: true, storage: true, effects: true, limit: 0 } };

async function outcome(fixture: GethFixture, needs: RecordNeeds | undefined) {
  const { vm, tx, block } = await prepareGethFixture(fixture);
  const table = (vm.evm as unknown as { _opcodeMap: unknown })._opcodeMap;
  const recorder = needs ? attachRecorder(vm, needs) : undefined;
  await recorder?.start(tx, block);
  const result = await runTx(vm, { tx, block, skipBlockGasLimitValidation: true });
  const record = await recorder?.finish(result);
  return {
    gasUsed: result.totalGasSpent,
    returnValue: Buffer.from(result.execResult.returnValue).toString('hex'),
    logs: result.execResult.logs?.length ?? 0,
    stateRoot: Buffer.from(await vm.stateManager.getStateRoot()).toString('hex'),
    tableRestored: (vm.evm as unknown as { _opcodeMap: unknown })._opcodeMap === table,
    steps: record?.steps?.length,
  };
}

describe('attachRecorder', () => {
  it('behavior: recording everything leaves gas, output, logs and state exactly as without it', async () => {
    const seen = new Set<string>();
    for (const fixture of fixtures) {
      if (seen.has(fixture.input as string)) continue;
      seen.add(fixture.input as string);
      const plain = await outcome(fixture, undefined);
      const recorded = await outcome(fixture, EVERYTHING);
      expect(recorded.tableRestored).toBe(true);
      expect(recorded.steps).toBeGreaterThan(0);
      const pick = ({ gasUsed, returnValue, logs, stateRoot }: typeof plain) => ({ gasUsed, returnValue, logs, stateRoot });
      expect(pick(recorded)).toEqual(pick(plain));
    }
    expect(seen.size).toBeGreaterThanOrEqual(10);
  });

  it('behavior: without step needs no step listener is attached; with them it is removed at the end', async () => {
    const { vm, tx, block } = await prepareGethFixture(fixtures[0]!);
    const evm = vm.evm as EVM;
    const frames = attachRecorder(vm, { state: false, steps: undefined });
    await frames.start(tx, block);
    expect(evm.events.listenerCount('step')).toBe(0);
    frames.detach();
    const steps = attachRecorder(vm, EVERYTHING);
    await steps.start(tx, block);
    expect(evm.events.listenerCount('step')).toBe(1);
    steps.detach();
    expect(evm.events.listenerCount('step')).toBe(0);
    expect(evm.events.listenerCount('beforeMessage')).toBe(0);
  });
});
