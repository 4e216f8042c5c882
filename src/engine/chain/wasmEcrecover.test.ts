// The WASM ecrecover must agree with @ethereumjs/util's pure-JS one, including high-s signatures
// (which the ECRECOVER precompile accepts) and refusals.
import { describe, it } from 'vitest';
import { expectRefusals, expectSameRecoveries } from './testing/ecrecoverChecks.js';
import { wasmEcrecover } from './wasmEcrecover.js';

describe('wasmEcrecover', () => {
  it('behavior: matches the pure-JS recovery for low-s and high-s signatures and every v form', () => {
    expectSameRecoveries(wasmEcrecover);
  });

  it('error: invalid v, zero r and out-of-range s are refused', () => {
    expectRefusals(wasmEcrecover);
  });
});
