// Traced calls through the tracer (debug_traceCall's and trace_call's path) with TRACEHOOK_FAST_EVM
// on and off: generated programs (state overrides on the dev chain) rendered by every frame and
// state renderer give the same JSON text from the interpreter's built-in recorder as from
// ethereumjs's, and the interpreter really answers when it is on; step renderers and
// trace_callMany's chained calls run on ethereumjs either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountOverride, StateOverrides } from '../chain/stateOverrides.js';
import { type TempChain, openTempChain } from '../chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../trace/createTracer.js';
import type { TraceRender } from '../trace/traceRender.js';
import { fastCallStats } from './fastCall.js';
import { FRAME_AND_STATE_RENDERS, STEP_RENDER } from './testing/frameAndStateRenders.js';
import { CONTRACTS, Rng, generateProgram } from './testing/programs.js';
import { addressBytes } from './words.js';

const RENDERS = FRAME_AND_STATE_RENDERS;

const hexAddress = (a: bigint): string => `0x${a.toString(16).padStart(40, '0')}`;

function overridesFor(seed: number): StateOverrides {
  const rng = new Rng(seed);
  const overrides: StateOverrides = new Map();
  for (const c of CONTRACTS) {
    const override: AccountOverride = { code: generateProgram(rng, 4 + rng.int(40)), balance: BigInt(rng.int(100_000)), stateDiff: new Map([[0n, BigInt(1 + rng.int(5))]]) };
    overrides.set(hexAddress(c), override);
  }
  return overrides;
}

describe('traced calls on the interpreter and on ethereumjs', () => {
  let temp: TempChain;
  let tracer: Tracer;
  beforeAll(async () => {
    temp = await openTempChain();
    tracer = createTracer({ chain: temp.chain });
  });
  afterAll(async () => {
    delete process.env.TRACEHOOK_FAST_EVM;
    await temp.dispose();
  });

  async function traced(seed: number, renders: TraceRender[], calls = 1): Promise<string[]> {
    const block = (await temp.chain.getBlockByNumber(temp.chain.headNumber()))!;
    const from = temp.chain.accounts[0]!.address.bytes;
    const rng = new Rng(seed * 7 + 1);
    const out: string[] = [];
    for (const render of renders) {
      const call = { from, to: addressBytes(CONTRACTS[0]!), gas: 300_000n, value: BigInt(rng.int(3)), data: Uint8Array.from({ length: rng.int(40) }, () => rng.int(256)) };
      try {
        const results = await tracer.traceCalls({ block, stateOverrides: overridesFor(seed) }, Array.from({ length: calls }, () => ({ call, render })));
        out.push(results.map((r) => r.text).join('\n'));
      } catch (error) {
        out.push(`error ${(error as Error).message}`);
      }
    }
    return out;
  }

  it('behavior: 40 generated programs render the same frame and state traces from both engines', async () => {
    const before = { ...fastCallStats };
    let differing = 0;
    for (let seed = 1; seed <= 40; seed++) {
      process.env.TRACEHOOK_FAST_EVM = '1';
      const fast = await traced(seed, RENDERS.map(([, r]) => r));
      process.env.TRACEHOOK_FAST_EVM = '0';
      const slow = await traced(seed, RENDERS.map(([, r]) => r));
      for (let i = 0; i < RENDERS.length; i++) {
        if (fast[i] !== slow[i]) differing++;
        expect({ seed, render: RENDERS[i]![0], text: fast[i] }).toEqual({ seed, render: RENDERS[i]![0], text: slow[i] });
      }
    }
    expect(differing).toBe(0);
    // Most of the 200 traced calls were answered by the interpreter (BLOCKHASH and the KZG/BLS precompiles go to ethereumjs).
    expect(fastCallStats.answered - before.answered).toBeGreaterThan(150);
  }, 120_000);

  it('behavior: steps (vmTrace) and chained calls (trace_callMany) run on ethereumjs and answer the same', async () => {
    const before = fastCallStats.answered;
    process.env.TRACEHOOK_FAST_EVM = '1';
    const fast = [...(await traced(3, [STEP_RENDER])), ...(await traced(3, [RENDERS[4]![1]], 2))];
    expect(fastCallStats.answered).toBe(before);
    process.env.TRACEHOOK_FAST_EVM = '0';
    const slow = [...(await traced(3, [STEP_RENDER])), ...(await traced(3, [RENDERS[4]![1]], 2))];
    expect(fast).toEqual(slow);
  }, 60_000);
});
