import { describe, expect, it } from 'vitest';
import { createTimeSlicer, sortInSlices } from './timeSlicer.js';

describe('time slicing', () => {
  it('default: sortInSlices sorts as Array.prototype.sort does', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed);
    for (const n of [0, 1, 5, 8192, 8193, 50_000]) {
      const items = Array.from({ length: n }, () => `0x${random().toString(16).padStart(8, '0')}${'ab'.repeat(random() % 3)}`);
      expect(await sortInSlices(items, createTimeSlicer())).toEqual([...items].sort());
    }
  });

  it('behavior: the event loop gets turns while a long sort runs', async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => `0x${((i * 2654435761) % 2 ** 32).toString(16).padStart(40, '0')}`);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    await sortInSlices(items, createTimeSlicer(0));
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(5);
  });
});
