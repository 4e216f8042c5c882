// The native ecrecover must agree with @ethereumjs/util's pure-JS one (high-s signatures, which the
// ECRECOVER precompile accepts, every v form, refusals), and a chain whose addon does not load must
// fall back to the WebAssembly one.
import { describe, expect, it } from 'vitest';
import { chooseEcrecover } from './nativeEcrecover.js';
import { expectRefusals, expectSameRecoveries } from './testing/ecrecoverChecks.js';
import { wasmEcrecover } from './wasmEcrecover.js';

describe('chooseEcrecover', () => {
  it('default: loads the native addon here (not the WebAssembly fallback)', () => {
    const failures: unknown[] = [];
    expect(chooseEcrecover(undefined, (error) => failures.push(error))).not.toBe(wasmEcrecover);
    expect(failures).toEqual([]);
  });

  it('behavior: matches the pure-JS recovery for low-s and high-s signatures and every v form', () => {
    expectSameRecoveries(chooseEcrecover());
  });

  it('error: invalid v, zero r and out-of-range s are refused', () => {
    expectRefusals(chooseEcrecover());
  });

  it('behavior: an addon that fails to load gives the WebAssembly recovery and says why', () => {
    const failures: unknown[] = [];
    const chosen = chooseEcrecover(
      () => {
        throw new Error('no binary for this platform');
      },
      (error) => failures.push(error),
    );
    expect(chosen).toBe(wasmEcrecover);
    expect(failures).toEqual([new Error('no binary for this platform')]);
  });
});
