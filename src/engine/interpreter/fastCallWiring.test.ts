// eth_call and eth_estimateGas through the embedded chain's call path with TRACEHOOK_FAST_EVM on
// and off: the same answers and the same errors, and the interpreter really runs when it is on;
// an estimate's runs share their state reads.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevChain, type DevChain } from '../chain/devChain.js';
import type { StateOverrides } from '../chain/stateOverrides.js';
import { makeTempDir } from '../chain/testing/tempChain.js';
import { fastCallStats } from './fastCall.js';

const TARGET = '0x00000000000000000000000000000000000c0de0';
const to = Uint8Array.from(Buffer.from(TARGET.slice(2), 'hex'));

function overrides(code: string): StateOverrides {
  return new Map([[TARGET, { code: Uint8Array.from(Buffer.from(code, 'hex')), stateDiff: new Map([[0n, 5n]]) }]]);
}

const CASES: [string, string, bigint | undefined][] = [
  // SLOAD(0) + 1, SSTORE, return the word.
  ['storage and return', '5f546001015f55' + '5f545f5260205ff3', undefined],
  // revert with Error("x") (selector 08c379a0).
  ['revert with a reason', '6308c379a05f526020600452600160245260786044536064601cfd', undefined],
  ['invalid jump', '600356', undefined],
  ['out of gas in a loop', '5b5f56', 100_000n],
  ['invalid opcode', 'fe', undefined],
];

describe('the call path with the interpreter switched on and off', () => {
  let chain: DevChain;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = makeTempDir('tracehook-fastcall-');
    chain = await createDevChain({ dataDir });
  });
  afterAll(async () => {
    delete process.env.TRACEHOOK_FAST_EVM;
    await chain.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function outcome(code: string, gas: bigint | undefined, method: 'call' | 'estimateGas'): Promise<string> {
    const block = (await chain.getBlockByNumber(chain.headNumber()))!;
    try {
      const result = await chain[method]({ to, gas }, block, overrides(code));
      return typeof result === 'bigint' ? `gas ${result}` : `ok ${Buffer.from(result).toString('hex')}`;
    } catch (error) {
      const e = error as Error & { code?: number; data?: unknown };
      return `error ${e.code} ${e.message} ${JSON.stringify(e.data)}`;
    }
  }

  it.each(CASES)('%s: same answer from eth_call and eth_estimateGas', async (_name, code, gas) => {
    const before = fastCallStats.answered;
    process.env.TRACEHOOK_FAST_EVM = '1';
    const fastAnswers = [await outcome(code, gas, 'call'), await outcome(code, gas, 'estimateGas')];
    const ranFast = fastCallStats.answered - before;
    process.env.TRACEHOOK_FAST_EVM = '0';
    const slowAnswers = [await outcome(code, gas, 'call'), await outcome(code, gas, 'estimateGas')];
    expect(fastCallStats.answered - before).toBe(ranFast);
    expect(ranFast).toBeGreaterThan(1);
    expect(fastAnswers).toEqual(slowAnswers);
  });

  it('behavior: eth_estimateGas’s runs share what they read, so an estimate reads the state as often as one call', async () => {
    delete process.env.TRACEHOOK_FAST_EVM;
    // SLOAD slots 0, 1 and 2, add them, and store the sum: a gas need the search bisects.
    const code = '5f5460015401600254015f5500';
    const block = (await chain.getBlockByNumber(chain.headNumber()))!;
    const loads = async (run: () => Promise<unknown>): Promise<{ loads: number; answered: number }> => {
      const before = { ...fastCallStats };
      await run();
      return { loads: fastCallStats.loads - before.loads, answered: fastCallStats.answered - before.answered };
    };
    const call = await loads(() => chain.call({ to }, block, overrides(code)));
    const estimate = await loads(() => chain.estimateGas({ to }, block, overrides(code)));
    expect(call).toMatchObject({ answered: 1 });
    expect(call.loads).toBeGreaterThanOrEqual(4);
    // Several runs (the first, the interpreter's guess of the limit and one unit below it), and the reads of one of them.
    expect(estimate.answered).toBeGreaterThanOrEqual(3);
    expect(estimate.loads).toBe(call.loads);
  });
});
