// One frame's memory for the interpreter, grown as used, with the yellow paper's expansion cost.
import { viewToWord, wordToView } from './words.js';

const EMPTY = new Uint8Array(0);

function memCost(words: number): number {
  return words * 3 + Math.floor((words * words) / 512);
}

/** One frame's memory: grows on use, `words` is what gas has paid for (MSIZE). */
export class Memory {
  buf = new Uint8Array(0);
  /** A DataView over `buf`, replaced with it. */
  data = new DataView(this.buf.buffer);
  words = 0;

  /** Gas to grow to cover [offset, offset+length), updating `words`; Infinity past 4 GiB. */
  expand(offset: bigint, length: bigint): number {
    return this.expandAt(Number(offset), Number(length));
  }

  /**
   * The same with offset and length as doubles (Number() of words, no BigInt sum or comparison):
   * exact below 2^53, and a word past 2^32 - 1 converts to a double past it, so the 4 GiB edge is exact.
   */
  expandAt(offset: number, length: number): number {
    if (length === 0) return 0;
    const end = offset + length;
    if (end > 0xffffffff) return Infinity;
    const words = Math.ceil(end / 32);
    if (words <= this.words) return 0;
    const cost = memCost(words) - memCost(this.words);
    this.words = words;
    return cost;
  }

  /** Makes `buf` hold `words` words (after gas was charged). */
  ensure(): void {
    const size = this.words * 32;
    if (this.buf.length < size) {
      const next = new Uint8Array(Math.max(size, Math.min(this.buf.length * 2, size + 65536)));
      next.set(this.buf);
      this.buf = next;
      this.data = new DataView(next.buffer);
    }
  }

  /** MLOAD's read of the word at `offset` (after gas was charged for it). */
  loadWord(offset: number): bigint {
    this.ensure();
    return viewToWord(this.data, offset);
  }

  /** MSTORE's write of `word` at `offset` (after gas was charged for it). */
  storeWord(offset: number, word: bigint): void {
    this.ensure();
    wordToView(word, this.data, offset);
  }

  /** The bytes in place (valid until memory changes). */
  view(offset: number, length: number): Uint8Array {
    if (length === 0) return EMPTY;
    this.ensure();
    return this.buf.subarray(offset, offset + length);
  }

  read(offset: number, length: number): Uint8Array {
    if (length === 0) return EMPTY;
    this.ensure();
    return this.buf.slice(offset, offset + length);
  }
}
