import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { keccak256, keccak256Word } from './keccak.js';
import { KECCAK_LAYOUT, KECCAK_RATE, keccakModuleBytes, rotationOffsets, roundConstants, webAssembly } from './keccakWasm.js';

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const hex = (data: Uint8Array): string => Buffer.from(data).toString('hex');

describe('keccak256', () => {
  it('default: the empty input hashes to the known constant', () => {
    expect(hex(keccak256(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(keccak256Word(new Uint8Array(0))).toBe(0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470n);
  });

  it('behavior: equals @noble/hashes on every length 0..300 (block boundaries 135/136/137, 271/272/273)', () => {
    for (let length = 0; length <= 300; length++) {
      const data = bytes(length, length + 1);
      const expected = hex(keccak_256(data));
      expect(hex(keccak256(data)), `length ${length}`).toBe(expected);
      expect(keccak256Word(data).toString(16).padStart(64, '0'), `word, length ${length}`).toBe(expected);
    }
  });

  it('behavior: a hash is right whatever length the hash before it had (the input block is cleared only where written)', () => {
    const lengths = [0, 1, 31, 32, 33, 64, 65, 100, 134, 135, 136, 137, 200, 271, 272, 273, 300, 1000];
    for (const before of lengths) {
      for (const length of lengths) {
        keccak256Word(bytes(before, 7 + before).fill(0xff, 0, Math.min(before, 40)));
        const data = bytes(length, length + 3);
        const label = `length ${length} after ${before}`;
        expect(keccak256Word(data).toString(16).padStart(64, '0'), label).toBe(hex(keccak_256(data)));
        keccak256(bytes(before, 11 + before));
        expect(hex(keccak256(data)), label).toBe(hex(keccak_256(data)));
      }
    }
  });

  it('behavior: equals @noble/hashes on inputs longer than the copy area (several chunks, with tails)', () => {
    const chunk = KECCAK_LAYOUT.inputBlocks * KECCAK_RATE;
    for (const length of [chunk - 1, chunk, chunk + 1, 2 * chunk + 135, 2 * chunk + 136, 3 * chunk + 7, 200_001]) {
      const data = bytes(length, length);
      expect(hex(keccak256(data)), `length ${length}`).toBe(hex(keccak_256(data)));
    }
  });

  it('args: keccak256Word hashes a range in place, leaving the bytes around it out', () => {
    const memory = bytes(1024, 7);
    for (const [start, length] of [
      [0, 32],
      [5, 64],
      [100, 135],
      [31, 136],
      [1, 137],
      [513, 511],
      [1024, 0],
    ] as const) {
      const expected = hex(keccak_256(memory.subarray(start, start + length)));
      expect(keccak256Word(memory, start, length).toString(16).padStart(64, '0'), `${start}+${length}`).toBe(expected);
    }
  });

  it('args: keccak256Word with a DataView over the bytes gives the same hash at every offset and short length', () => {
    const memory = bytes(300, 9);
    const view = new DataView(memory.buffer);
    for (let start = 0; start < 8; start++) {
      for (const length of [0, 1, 3, 4, 5, 31, 32, 33, 63, 64, 65, 135, 136, 137, 200]) {
        const expected = hex(keccak_256(memory.subarray(start, start + length)));
        expect(keccak256Word(memory, start, length, view).toString(16).padStart(64, '0'), `${start}+${length}`).toBe(expected);
      }
    }
  });

  it('behavior: a returned hash is a copy the next hash does not overwrite', () => {
    const first = keccak256(bytes(32, 1));
    const copy = hex(first);
    keccak256(bytes(32, 2));
    expect(hex(first)).toBe(copy);
  });

  it('behavior: a short hash after a long one starts from a fresh state', () => {
    const short = bytes(40, 3);
    const expected = hex(keccak_256(short));
    keccak256(bytes(5000, 4));
    expect(hex(keccak256(short))).toBe(expected);
  });
});

describe('keccakWasm', () => {
  it('default: the generated constants are FIPS 202 keccak-f[1600] constants', () => {
    const constants = roundConstants();
    expect(constants).toHaveLength(24);
    expect(constants[0]).toBe(0x0000000000000001n);
    expect(constants[1]).toBe(0x0000000000008082n);
    expect(constants[23]).toBe(0x8000000080008008n);
    const offsets = rotationOffsets();
    expect(offsets[0]).toBe(0);
    expect(offsets[1]).toBe(1);
    expect(offsets[24]).toBe(14);
    expect(new Set(offsets.slice(1)).size).toBe(24);
  });

  it('default: the emitted module validates', () => {
    expect(webAssembly.validate(keccakModuleBytes())).toBe(true);
  });
});
