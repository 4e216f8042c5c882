import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gasBeforeChild, gasNeedAround } from './gasNeed.js';
import { Errors } from './message.js';

describe('gasNeed', () => {
  it('property: gasBeforeChild is the least gas whose all but one 64th reaches the amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (x) => {
        const a = gasBeforeChild(x);
        expect(a - Math.floor(a / 64)).toBeGreaterThanOrEqual(x);
        if (a > 0) expect(a - 1 - Math.floor((a - 1) / 64)).toBeLessThan(x);
      }),
    );
  });

  it("behavior: a child's need is what the frame spent before it plus what passes it on; the stipend counts toward it; an exceptional halt leaves it unknown", () => {
    const ok = { error: undefined, gasLeft: 0, output: new Uint8Array(), gasNeed: 6300 };
    expect(gasNeedAround(100_000, 90_000, ok, 0)).toBe(10_000 + gasBeforeChild(6300));
    expect(gasNeedAround(100_000, 90_000, ok, 2300)).toBe(10_000 + gasBeforeChild(4000));
    expect(gasNeedAround(100_000, 90_000, { ...ok, gasNeed: 1000 }, 2300)).toBe(10_000);
    expect(gasNeedAround(100_000, 90_000, { ...ok, error: Errors.REVERT }, 0)).toBe(10_000 + gasBeforeChild(6300));
    expect(gasNeedAround(100_000, 90_000, { ...ok, error: Errors.OUT_OF_GAS }, 0)).toBeUndefined();
  });
});
