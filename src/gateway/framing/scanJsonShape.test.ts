import { describe, expect, it } from 'vitest';
import { scanJsonShape } from './scanJsonShape.js';

const scan = (text: string, maxDepth = 64) => scanJsonShape(Buffer.from(text), maxDepth);

describe('scanJsonShape', () => {
  it('default: counts top-level array elements, whatever they hold', () => {
    expect(scan('[]')).toEqual({ tooDeep: false, tooManyValues: false, topLevelElements: 0, values: 1 });
    expect(scan(' [ 1 ] ')).toEqual({ tooDeep: false, tooManyValues: false, topLevelElements: 1, values: 1 });
    expect(scan('[{"a":[1,2,3]},"x,y",[4,5],{"b":"]}"}]')).toEqual({ tooDeep: false, tooManyValues: false, topLevelElements: 4, values: 11 });
    expect(scan('{"jsonrpc":"2.0","params":[1,2]}')).toEqual({ tooDeep: false, tooManyValues: false, topLevelElements: 0, values: 4 });
    expect(scan('[[],[],[]]').topLevelElements).toBe(3);
  });

  it('behavior: brackets and quotes inside strings (escaped too) do not count', () => {
    expect(scan(`["${'['.repeat(100)}", "a\\"[[[[", "\\\\"]`)).toEqual({ tooDeep: false, tooManyValues: false, topLevelElements: 3, values: 3 });
    expect(scan(JSON.stringify(['ü[€]', '\u0000"{'])).topLevelElements).toBe(2);
  });

  it('args: depth up to the limit passes, one more is too deep', () => {
    expect(scan('['.repeat(64) + ']'.repeat(64)).tooDeep).toBe(false);
    expect(scan('['.repeat(65) + ']'.repeat(65)).tooDeep).toBe(true);
    expect(scan(`{"params":${'{"a":'.repeat(63)}1${'}'.repeat(63)}}`).tooDeep).toBe(false);
    expect(scan(`{"params":${'{"a":'.repeat(64)}1${'}'.repeat(64)}}`).tooDeep).toBe(true);
    expect(scan('['.repeat(3) + ']'.repeat(3), 2).tooDeep).toBe(true);
  });

  it('args: the scan stops after maxValues values', () => {
    expect(scanJsonShape(Buffer.from('[1,2,3]'), 64, 3)).toMatchObject({ tooManyValues: false, values: 3 });
    expect(scanJsonShape(Buffer.from('[1,2,3,4]'), 64, 3)).toMatchObject({ tooManyValues: true, values: 4 });
  });

  it('behavior: a 5 MiB nested body is refused in a few milliseconds', () => {
    const half = 5 * 512 * 1024;
    const body = Buffer.from('['.repeat(half) + ']'.repeat(half));
    const started = performance.now();
    expect(scanJsonShape(body, 64).tooDeep).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
