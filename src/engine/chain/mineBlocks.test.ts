// DevControls.mineBlocks: anvil_mine's block run, with anvil's interval semantics (the clock moves
// ahead before every block and stays ahead), one block per turn of the event loop.
import { describe, expect, it } from 'vitest';
import { equalsBytes } from '@ethereumjs/util';
import { MAX_BLOCKS_PER_CALL } from './devControls.js';
import { useTempChains } from './testing/useTempChains.js';

const CLOCK_SEC = 1_700_000_000n;

describe('mineBlocks', () => {
  const openChain = useTempChains();

  it('behavior: blocks follow each other with the clock moved by the interval before each one, like anvil', async () => {
    const { chain } = await openChain();
    await chain.mineBlocks(3n, { intervalSec: 100n });
    expect(chain.headNumber()).toBe(3n);
    const blocks = await Promise.all([0n, 1n, 2n, 3n].map((n) => chain.getBlockByNumber(n)));
    for (let n = 1; n <= 3; n++) {
      expect(blocks[n]!.header.number).toBe(BigInt(n));
      expect(equalsBytes(blocks[n]!.header.parentHash, blocks[n - 1]!.hash())).toBe(true);
      // anvil 1.7.1: `anvil_mine 3 100` from time T gives T+100, T+200, T+300.
      expect(blocks[n]!.header.timestamp).toBe(CLOCK_SEC + 100n * BigInt(n));
    }
    // The clock stays ahead afterwards (anvil's increase_time), so the next block is not at T.
    expect((await chain.mine()).header.timestamp).toBe(CLOCK_SEC + 300n);
  });

  it('default: without an interval every block takes the clock (blocks within one second share it)', async () => {
    const { chain } = await openChain();
    await chain.mineBlocks(5n);
    expect(chain.headNumber()).toBe(5n);
    for (let n = 1n; n <= 5n; n++) expect((await chain.getBlockByNumber(n))!.header.timestamp).toBe(CLOCK_SEC);
  });

  it('behavior: timers run between blocks, so other work is served during a long run', async () => {
    const { chain } = await openChain();
    const headsSeenByTimers: bigint[] = [];
    const timer = setInterval(() => headsSeenByTimers.push(chain.headNumber()), 0);
    try {
      await chain.mineBlocks(40n);
    } finally {
      clearInterval(timer);
    }
    expect(chain.headNumber()).toBe(40n);
    // Before, the whole run was promise callbacks only: no timer fired until it was over.
    expect(headsSeenByTimers.filter((n) => n > 0n && n < 40n).length).toBeGreaterThan(5);
  });

  it('args: firstTimestampSec times the first block; the next ones continue from it (evm_mine {timestamp, blocks})', async () => {
    const { chain } = await openChain();
    await chain.mineBlocks(3n, { firstTimestampSec: CLOCK_SEC + 500n });
    const stamps = await Promise.all([1n, 2n, 3n].map(async (n) => (await chain.getBlockByNumber(n))!.header.timestamp));
    expect(stamps).toEqual([CLOCK_SEC + 500n, CLOCK_SEC + 500n, CLOCK_SEC + 500n]);
    await expect(chain.mineBlocks(2n, { firstTimestampSec: CLOCK_SEC })).rejects.toThrow('lower than the previous block');
    expect(chain.headNumber()).toBe(3n);
  });

  it('error: more blocks than the limit is refused before any is mined', async () => {
    const { chain } = await openChain();
    await expect(chain.mineBlocks(MAX_BLOCKS_PER_CALL + 1n)).rejects.toThrow(`blocks: at most ${MAX_BLOCKS_PER_CALL} blocks per call, got ${MAX_BLOCKS_PER_CALL + 1n}`);
    expect(chain.headNumber()).toBe(0n);
  });

  it('behavior: closing the chain stops a run before its next block', async () => {
    const { chain, dispose } = await openChain();
    const run = chain.mineBlocks(5_000n);
    await new Promise((r) => setTimeout(r, 30));
    const closing = dispose();
    await expect(run).rejects.toThrow(/the chain closed after \d+ of 5000 blocks/);
    await closing;
  });
});
