// Frame bounds on a call that hands its callee 1 MiB of memory hundreds of times: traces refuse it
// with the cap's error; the miner's kind keeps the first MiB of input, leaves the rest out and marks
// the record incomplete, so the mined-record store does not keep it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexToBytes } from '@ethereumjs/util';
import { type TempChain, openTempChain } from '../chain/testing/tempChain.js';
import { MINED_RECORD_NEEDS } from '../chain/minedRecordStore.js';
import type { StateOverrides } from '../chain/stateOverrides.js';
import { type Tracer, createTracer } from '../trace/createTracer.js';
import { createStepBudget } from './stepBudget.js';
import type { RecordNeeds } from './types.js';

const BOMB = '0x00000000000000000000000000000000000000a5';
/** Expands memory to 1 MiB, then calls 0xaa with that MiB as input, forever. */
const BOMB_CODE = '0x6000620fffff535b60006000621000006000600060aa5af150600756';
/** The same through the identity precompile, which also returns the MiB (about 98k gas a call). */
const IDENTITY_BOMB_CODE = '0x6000620fffff535b621000006000621000006000600060045af150600756';
const MIB = 1024 * 1024;

describe('frame bounds', () => {
  let temp: TempChain;
  let tracer: Tracer;
  beforeAll(async () => {
    temp = await openTempChain();
    tracer = createTracer({ chain: temp.chain });
  });
  afterAll(async () => {
    tracer?.close();
    await temp?.dispose();
  });

  const record = async (needs: RecordNeeds, code: `0x${string}` = BOMB_CODE, gas = 2_300_000n) => {
    const block = await tracer.requireBlock(undefined);
    const call = { from: hexToBytes('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'), to: hexToBytes(BOMB), gas };
    const stateOverrides: StateOverrides = new Map([[BOMB, { code: hexToBytes(code) }]]);
    return (await tracer.recordCalls({ block, stateOverrides }, [{ call, needs }]))[0]!;
  };

  it('error: past the job budget the execution stops with the cap named', async () => {
    const budget = createStepBudget({ maxBytes: 8 * MIB, maxSteps: 1_000_000 });
    const needs: RecordNeeds = { state: false, steps: undefined, frames: { kind: 'refuse', budget, advice: { steps: 'fewer', bytes: 'smaller' } } };
    await expect(record(needs)).rejects.toMatchObject({ code: -32005, shortMessage: `trace output exceeds --trace-max-bytes (${8 * MIB} bytes)`, details: 'smaller' });
  });

  it('behavior: the miner keeps the first MiB of input, leaves the rest out and marks the record incomplete', async () => {
    const kept = await record(MINED_RECORD_NEEDS);
    expect(kept.incomplete).toBe(true);
    const inputs = kept.frames.slice(1).map((f) => f.input.length);
    expect(inputs.length).toBeGreaterThan(500);
    expect(inputs[0]).toBe(MIB);
    expect(inputs.slice(1).every((n) => n === 0)).toBe(true);
    // Return data counts as well: the identity precompile's first MiB of output already passes the bound.
    const identity = await record(MINED_RECORD_NEEDS, IDENTITY_BOMB_CODE, 3_000_000n);
    expect(identity.incomplete).toBe(true);
    const calls = identity.frames.slice(1);
    expect(calls.length).toBeGreaterThan(5);
    expect(calls.map((f) => [f.input.length, f.output.length])).toEqual([[MIB, 0], ...calls.slice(1).map(() => [0, 0])]);
  });
});
