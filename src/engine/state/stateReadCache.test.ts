// The shared trie-read cache: values stay under the root they were read at, absent keys are
// remembered as null, and the entry bound holds by evicting the least recently used root first.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createStateReadCache, readCacheKey } from './stateReadCache.js';

const value = (n: number) => new Uint8Array([n]);

describe('state read cache', () => {
  it('default: a value is served only under the root it was stored at; absent keys are null', () => {
    const cache = createStateReadCache();
    cache.set('aa', 'k1', value(1));
    cache.set('aa', 'k2', null);
    cache.set('bb', 'k1', value(2));
    expect(cache.get('aa', 'k1')).toEqual(value(1));
    expect(cache.get('bb', 'k1')).toEqual(value(2));
    expect(cache.get('aa', 'k2')).toBeNull();
    expect(cache.get('bb', 'k2')).toBeUndefined();
    expect(cache.get('cc', 'k1')).toBeUndefined();
    expect(cache.size()).toBe(3);
  });

  it('args: maxEntries bounds the entries across roots, evicting the least recently used root first', () => {
    const cache = createStateReadCache({ maxEntries: 4 });
    cache.set('old', 'a', value(1));
    cache.set('old', 'b', value(2));
    cache.set('used', 'a', value(3));
    cache.set('used', 'b', value(4));
    expect(cache.get('old', 'a')).toEqual(value(1)); // 'old' is now the most recently used root
    cache.set('new', 'a', value(5));
    expect(cache.size()).toBe(4);
    expect(cache.get('used', 'a')).toBeUndefined();
    expect(cache.get('used', 'b')).toEqual(value(4));
    expect(cache.get('old', 'a')).toEqual(value(1));
    expect(cache.get('new', 'a')).toEqual(value(5));
  });

  it('behavior: maxBytes bounds the estimate across roots of one key each, as under steady blocks; overwrites and eviction keep the figure right', () => {
    const maxBytes = 64 * 1024;
    const cache = createStateReadCache({ maxBytes });
    for (let block = 0; block < 2000; block++) {
      const root = block.toString(16).padStart(64, '0');
      cache.set(root, 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266', new Uint8Array(76));
      if (block % 3 === 0) cache.set(root, '70997970c51812dc3a010c7d01b50e0d17dc79c8', null);
      if (block % 5 === 0) cache.set(root, 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266', new Uint8Array(70));
      expect(cache.bytes()).toBeLessThanOrEqual(maxBytes);
    }
    expect(cache.size()).toBeGreaterThan(50);
    expect(cache.get((1999).toString(16).padStart(64, '0'), 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toEqual(new Uint8Array(76));
    expect(cache.get('0'.repeat(64), 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBeUndefined();
    // Emptied by eviction, the figure comes back to nothing: every byte counted in was counted out.
    const tiny = createStateReadCache({ maxBytes: 1 });
    tiny.set('aa', 'k', value(1));
    expect([tiny.size(), tiny.bytes()]).toEqual([0, 0]);
  });

  it('behavior: one root larger than the bound keeps its newest keys; overwriting does not grow it', () => {
    const cache = createStateReadCache({ maxEntries: 100 });
    for (let i = 0; i < 1000; i++) cache.set('root', `k${i}`, value(i & 0xff));
    for (let i = 0; i < 50; i++) cache.set('root', `k${999 - i}`, value(0));
    expect(cache.size()).toBe(100);
    expect(cache.get('root', 'k899')).toBeUndefined();
    expect(cache.get('root', 'k900')).toEqual(value(900 & 0xff));
    expect(cache.get('root', 'k999')).toEqual(value(0));
    cache.clear();
    expect(cache.size()).toBe(0);
    expect(cache.get('root', 'k999')).toBeUndefined();
  });

  it('behavior: keys depend on the bytes alone (any offset in any buffer); different bytes or lengths never share a key', () => {
    const seen = new Map<string, string>();
    for (const length of [20, 32, 0, 1, 2, 3, 19, 21, 31, 33]) {
      for (let i = 0; i < 50; i++) {
        const bytes = new Uint8Array(randomBytes(length));
        if (i === 0) bytes.fill(0);
        const key = readCacheKey(bytes);
        const hex = Buffer.from(bytes).toString('hex');
        expect(seen.get(key) ?? hex, hex).toBe(hex);
        seen.set(key, hex);
        // The same bytes inside a larger buffer, at an odd offset.
        const backing = new Uint8Array(length + 3);
        backing.set(bytes, 1);
        expect(readCacheKey(backing.subarray(1, 1 + length))).toBe(key);
        // One byte changed: another key.
        if (length > 0) {
          const changed = bytes.slice();
          changed[length - 1]! ^= 1;
          expect(readCacheKey(changed)).not.toBe(key);
        }
      }
    }
    // Zero-padded keys of other lengths (a 19-byte key and its 20-byte extension) stay apart.
    expect(readCacheKey(new Uint8Array(20))).not.toBe(readCacheKey(new Uint8Array(19)));
    expect(readCacheKey(new Uint8Array(32))).not.toBe(readCacheKey(new Uint8Array(31)));
  });
});
