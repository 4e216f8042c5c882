import { describe, expect, it } from 'vitest';
import { bytesToWord, leadingZeros, viewToWord, wordToView } from './words.js';

const TWO256 = 1n << 256n;

/** Words at the edges of each 64-bit limb, and a few mixed ones. */
const words: bigint[] = [0n, 1n, 0xffn, (1n << 32n) - 1n, 1n << 32n, (1n << 64n) - 1n, 1n << 64n, (1n << 64n) + 1n, (1n << 128n) - 1n, 1n << 128n, (1n << 192n) - 1n, 1n << 192n, 1n << 255n, TWO256 - 1n];
let x = 0x9e3779b97f4a7c15n;
for (let i = 0; i < 200; i++) {
  x = (x * 6364136223846793005n + 1442695040888963407n) % TWO256;
  words.push(x >> BigInt(i % 256)); // every bit length
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const wordHex = (word: bigint): string => word.toString(16).padStart(64, '0');

describe('words', () => {
  it('behavior: wordToView writes the 32 big-endian bytes and nothing around them; viewToWord reads them back', () => {
    const bytes = new Uint8Array(96).fill(0xaa);
    const view = new DataView(bytes.buffer);
    for (const word of words) {
      wordToView(word, view, 32);
      expect(hex(bytes.subarray(32, 64)), wordHex(word)).toBe(wordHex(word));
      expect(hex(bytes.subarray(0, 32)) + hex(bytes.subarray(64)), wordHex(word)).toBe('aa'.repeat(64));
      expect(viewToWord(view, 32)).toBe(word);
      expect(bytesToWord(bytes, 32, 32)).toBe(word);
    }
  });

  it('behavior: a small word stored over a large one clears its high bytes', () => {
    const view = new DataView(new ArrayBuffer(32));
    wordToView(TWO256 - 1n, view, 0);
    wordToView(7n, view, 0);
    expect(viewToWord(view, 0)).toBe(7n);
    wordToView(TWO256 - 1n, view, 0);
    wordToView(1n << 64n, view, 0);
    expect(viewToWord(view, 0)).toBe(1n << 64n);
  });

  it('behavior: viewToWord at unaligned offsets', () => {
    const bytes = new Uint8Array(64);
    const view = new DataView(bytes.buffer);
    for (let offset = 0; offset <= 32; offset += 3) {
      for (const word of words.slice(0, 40)) {
        bytes.fill(0x55);
        wordToView(word, view, offset);
        expect(viewToWord(view, offset)).toBe(word);
      }
    }
  });

  it('behavior: leadingZeros counts the zero bits above the highest set bit (256 for zero), as a bit string shows them', () => {
    for (const word of words) expect(leadingZeros(word), wordHex(word)).toBe(word === 0n ? 256 : 256 - word.toString(2).length);
    for (let bit = 0; bit < 256; bit++) expect(leadingZeros(1n << BigInt(bit))).toBe(255 - bit);
  });
});
