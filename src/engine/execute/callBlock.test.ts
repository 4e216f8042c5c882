// The call block cache: a call naming no fee runs in a zero-base-fee copy of its block, built once
// per block whichever object carries it; calls with block overrides get a block built for them.
import { afterEach, describe, expect, it } from 'vitest';
import { createBlockFromRLP } from '@ethereumjs/block';
import { type TempChain, openTempChain } from '../chain/testing/tempChain.js';
import { createCallBlockCache } from './callBlock.js';

const temps: TempChain[] = [];
afterEach(async () => {
  for (const t of temps.splice(0)) await t.dispose();
});

describe('createCallBlockCache', () => {
  it('default: one zero-base-fee copy per block, for the same object and for another object of that block', async () => {
    const temp = await openTempChain();
    temps.push(temp);
    const { chain } = temp;
    const block = (await chain.getBlockByNumber(0n))!;
    const cache = createCallBlockCache();
    const built = cache.blockFor(block, chain.common, { zeroBaseFee: true });
    expect(built).not.toBe(block);
    expect(built.header.baseFeePerGas).toBe(0n);
    expect(built.header.number).toBe(block.header.number);
    expect(cache.blockFor(block, chain.common, { zeroBaseFee: true })).toBe(built);
    const copy = createBlockFromRLP(block.serialize(), { common: chain.common });
    expect(cache.blockFor(copy, chain.common, { zeroBaseFee: true })).toBe(built);
    // A call that pays for gas runs in the block itself; overrides get a block of their own.
    expect(cache.blockFor(block, chain.common, { zeroBaseFee: false })).toBe(block);
    const overridden = cache.blockFor(block, chain.common, { zeroBaseFee: true, overrides: { number: 99n } });
    expect(overridden.header.number).toBe(99n);
    expect(cache.blockFor(block, chain.common, { zeroBaseFee: true })).toBe(built);
  });
});
