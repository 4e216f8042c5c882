// The canonical window: adopting segments, the first replaced number, trimming.
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../rpc/hex.js';
import { createCanonicalChain, type ChainBlock } from './canonicalChain.js';

const h = (n: number, fork = 'a'): Hex => `0x${fork}${n.toString(16).padStart(63, '0')}` as Hex;
const block = (n: number, fork = 'a', parentFork = fork): ChainBlock => ({ number: BigInt(n), hash: h(n, fork), parentHash: h(n - 1, parentFork) });

describe('canonical chain', () => {
  it('default: appends, reports the first replaced number on a reorg and drops what is above', () => {
    const c = createCanonicalChain(8);
    c.reset(block(1));
    expect(c.adopt([block(2), block(3), block(4)])).toBeUndefined();
    expect(c.adopt([block(3, 'b', 'a'), block(4, 'b')])).toBe(3n);
    expect(c.hashAt(3n)).toBe(h(3, 'b'));
    expect(c.hashAt(2n)).toBe(h(2));
    // A shorter replacement: everything above it is gone too.
    c.adopt([block(5, 'b')]);
    expect(c.adopt([block(3, 'c', 'a')])).toBe(3n);
    expect(c.tip()?.number).toBe(3n);
    expect(c.hashAt(5n)).toBeUndefined();
  });

  it('behavior: keeps a bounded window', () => {
    const c = createCanonicalChain(8);
    c.reset(block(1));
    for (let n = 2; n <= 40; n++) c.adopt([block(n)]);
    expect(c.low()).toBe(33n);
    expect(c.hashAt(32n)).toBeUndefined();
    expect(c.hashAt(33n)).toBe(h(33));
  });
});
