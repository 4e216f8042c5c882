import { describe, expect, it } from 'vitest';
import { Memory } from './memory.js';

const TWO256 = 1n << 256n;
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const wordHex = (word: bigint): string => word.toString(16).padStart(64, '0');

describe('Memory', () => {
  it('behavior: storeWord and loadWord round-trip across growth, keeping what was written before', () => {
    const memory = new Memory();
    expect(memory.expand(0n, 32n)).toBe(3);
    memory.storeWord(0, TWO256 - 1n);
    expect(memory.expand(4096n, 32n)).toBeGreaterThan(0);
    memory.storeWord(4096, 12345n);
    expect(memory.loadWord(0)).toBe(TWO256 - 1n);
    expect(memory.loadWord(4096)).toBe(12345n);
    expect(hex(memory.view(4096, 32))).toBe(wordHex(12345n));
    expect(memory.loadWord(4000)).toBe(0n);
  });

  it('behavior: expand charges the yellow paper cost once per word and prices past 4 GiB at Infinity', () => {
    const memory = new Memory();
    expect(memory.expand(5n, 0n)).toBe(0);
    expect(memory.expand(TWO256 - 1n, 0n)).toBe(0);
    expect(memory.words).toBe(0);
    expect(memory.expand(0n, 1n)).toBe(3);
    expect(memory.expand(31n, 1n)).toBe(0);
    expect(memory.expand(32n, 1n)).toBe(3);
    expect(memory.expand(0n, 32n * 1024n)).toBe(1024 * 3 + Math.floor((1024 * 1024) / 512) - 6);
    expect(memory.expand(0xffffffffn, 1n)).toBe(Infinity);
    expect(memory.expand(0xfffffffen, 1n)).toBeLessThan(Infinity);
    expect(new Memory().expand(1n, 0xffffffffn)).toBe(Infinity);
    expect(new Memory().expand(0x100000000n, 1n)).toBe(Infinity);
    expect(new Memory().expand(0n, 0x100000000n)).toBe(Infinity);
    expect(new Memory().expand(TWO256 - 1n, 32n)).toBe(Infinity);
  });

  it('behavior: expandAt on Number() of words equals the BigInt sum against 2^32 at every edge (2^32, 2^53, 2^64, 2^256 - 1)', () => {
    const edges = [0n, 1n, 31n, 32n, 0xfffffffen, 0xffffffffn, 0x100000000n, (1n << 53n) - 1n, 1n << 53n, (1n << 53n) + 1n, 1n << 64n, TWO256 - 1n];
    for (const offset of edges) {
      for (const length of edges) {
        const end = offset + length;
        const words = Number((end + 31n) / 32n);
        const expected = length === 0n ? 0 : end > 0xffffffffn ? Infinity : words * 3 + Math.floor((words * words) / 512);
        expect(new Memory().expandAt(Number(offset), Number(length)), `${offset} ${length}`).toBe(expected);
        expect(new Memory().expand(offset, length), `${offset} ${length}`).toBe(expected);
      }
    }
  });
});
