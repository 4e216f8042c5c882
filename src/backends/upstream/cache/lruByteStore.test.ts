// The byte-bounded LRU: recency, the bound, oversized entries, the per-number index used by reorgs.
import { describe, expect, it } from 'vitest';
import type { Hex } from '../../../rpc/hex.js';
import { createLruByteStore, type CacheEntry } from './lruByteStore.js';

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
const entry = (text: string, number = 1n): CacheEntry => ({ text, number, hash: hash(Number(number)), final: false });

describe('lruByteStore', () => {
  it('default: stores and returns entries, counting their text length', () => {
    const store = createLruByteStore(100);
    expect(store.set('a', entry('"aaaa"'))).toBe(0);
    expect(store.get('a')?.text).toBe('"aaaa"');
    expect(store.bytes).toBe(6);
    expect(store.entries).toBe(1);
    expect(store.get('b')).toBeUndefined();
  });

  it('behavior: evicts the least recently used entries until the new one fits, never exceeding the bound', () => {
    const store = createLruByteStore(30);
    store.set('a', entry('"' + 'a'.repeat(8) + '"'));
    store.set('b', entry('"' + 'b'.repeat(8) + '"'));
    store.set('c', entry('"' + 'c'.repeat(8) + '"'));
    store.get('a'); // a is now the most recently used; b the least
    expect(store.set('d', entry('"' + 'd'.repeat(8) + '"'))).toBe(1);
    expect(store.peek('b')).toBeUndefined();
    expect(['a', 'c', 'd'].every((k) => store.peek(k))).toBe(true);
    expect(store.bytes).toBe(30);
    expect(store.set('e', entry('"' + 'e'.repeat(18) + '"'))).toBe(2);
    expect(store.bytes).toBeLessThanOrEqual(30);
    expect(store.peek('a')).toBeUndefined();
    expect(store.peek('d')).toBeDefined();
  });

  it('behavior: replacing a key counts its bytes once', () => {
    const store = createLruByteStore(100);
    store.set('a', entry('"aaaa"'));
    store.set('a', entry('"aa"'));
    expect(store.bytes).toBe(4);
    expect(store.entries).toBe(1);
  });

  it('args: an entry larger than the whole bound is not stored and evicts nothing', () => {
    const store = createLruByteStore(10);
    store.set('a', entry('"aaa"'));
    expect(store.set('big', entry('"' + 'x'.repeat(20) + '"'))).toBe(0);
    expect(store.peek('big')).toBeUndefined();
    expect(store.peek('a')).toBeDefined();
  });

  it('behavior: dropFrom removes every entry of a block at or above the number, and only those', () => {
    const store = createLruByteStore(1000);
    for (const n of [1n, 2n, 3n, 4n]) {
      store.set(`tx${n}`, entry(`"t${n}"`, n));
      store.set(`blk${n}`, entry(`"b${n}"`, n));
    }
    expect(store.dropFrom(3n)).toBe(4);
    expect([...['tx1', 'blk1', 'tx2', 'blk2']].every((k) => store.peek(k))).toBe(true);
    expect(store.peek('tx3')).toBeUndefined();
    expect(store.peek('blk4')).toBeUndefined();
    expect(store.entries).toBe(4);
    expect(store.bytes).toBe(16);
    expect(store.dropFrom(3n)).toBe(0);
  });

  it('error: a negative bound is refused', () => {
    expect(() => createLruByteStore(-1)).toThrow(/maxBytes/);
  });
});
