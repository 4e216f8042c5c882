import { describe, expect, it } from 'vitest';
import { createRenderedTraceCache } from './renderedTraceCache.js';

describe('createRenderedTraceCache', () => {
  it('default: returns what was stored and counts its JSON size', () => {
    const cache = createRenderedTraceCache();
    cache.set('a', { x: 1 });
    expect(cache.get('a')).toEqual({ x: 1 });
    expect(cache.get('b')).toBeUndefined();
    expect(cache.stats()).toEqual({ entries: 1, bytes: JSON.stringify({ x: 1 }).length });
  });

  it('behavior: evicts least recently used entries beyond the byte bound', () => {
    const cache = createRenderedTraceCache({ maxBytes: 30 });
    cache.set('a', 'x'.repeat(8)); // 10 bytes as JSON
    cache.set('b', 'y'.repeat(8));
    cache.get('a');
    cache.set('c', 'z'.repeat(8));
    cache.set('d', 'w'.repeat(8));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('x'.repeat(8));
    expect(cache.stats().bytes).toBeLessThanOrEqual(30);
  });

  it('behavior: never keeps an entry larger than the bound, and clear empties it', () => {
    const cache = createRenderedTraceCache({ maxBytes: 10 });
    cache.set('big', 'x'.repeat(20));
    expect(cache.get('big')).toBeUndefined();
    cache.set('a', 1);
    cache.clear();
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });
});

describe('createRenderedTraceCache recency', () => {
  it('behavior: an entry read often survives while a stream of new entries passes through', () => {
    const cache = createRenderedTraceCache({ maxBytes: 100 * 12 });
    cache.set('hot', 'h'.repeat(10));
    for (let i = 0; i < 1000; i++) {
      cache.set(`k${i}`, 'v'.repeat(10));
      expect(cache.get('hot')).toBe('h'.repeat(10));
    }
    expect(cache.stats().entries).toBeLessThanOrEqual(100);
  });
});
