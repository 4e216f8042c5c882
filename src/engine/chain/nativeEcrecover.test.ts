// The native ecrecover must agree with @ethereumjs/util's pure-JS one (high-s signatures, which the
// ECRECOVER precompile accepts, every v form, refusals), and a chain whose addon does not load must
// fall back to the WebAssembly one.
import { describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bigIntToBytes, ecrecover } from '@ethereumjs/util';
import { chooseEcrecover } from './nativeEcrecover.js';
import { wasmEcrecover } from './wasmEcrecover.js';

const N = secp256k1.Point.CURVE().n;

describe('chooseEcrecover', () => {
  it('default: loads the native addon here (not the WebAssembly fallback)', () => {
    const failures: unknown[] = [];
    expect(chooseEcrecover(undefined, (error) => failures.push(error))).not.toBe(wasmEcrecover);
    expect(failures).toEqual([]);
  });

  it('behavior: matches the pure-JS recovery for low-s and high-s signatures and every v form', () => {
    const native = chooseEcrecover();
    for (let i = 1; i <= 20; i++) {
      const key = keccak_256(new Uint8Array([i]));
      const hash = keccak_256(new Uint8Array([i, i]));
      const sig = secp256k1.Signature.fromBytes(secp256k1.sign(hash, key, { format: 'recovered', prehash: false }), 'recovered');
      const recovery = sig.recovery!;
      const r = bigIntToBytes(sig.r);
      const variants: [bigint, Uint8Array][] = [
        [BigInt(recovery), bigIntToBytes(sig.s)],
        [27n + BigInt(recovery), bigIntToBytes(sig.s)],
        [27n + BigInt(1 - recovery), bigIntToBytes(N - sig.s)],
      ];
      for (const [v, s] of variants) expect(native(hash, v, r, s)).toEqual(ecrecover(hash, v, r, s));
      const chainV = 31337n * 2n + 35n + BigInt(recovery);
      expect(native(hash, chainV, r, bigIntToBytes(sig.s), 31337n)).toEqual(ecrecover(hash, chainV, r, bigIntToBytes(sig.s), 31337n));
    }
  });

  it('error: invalid v, zero r and out-of-range s are refused', () => {
    const native = chooseEcrecover();
    const hash = keccak_256(new Uint8Array([1]));
    expect(() => native(hash, 29n, new Uint8Array([1]), new Uint8Array([1]))).toThrow(/v value/);
    expect(() => native(hash, 27n, new Uint8Array([0]), new Uint8Array([1]))).toThrow(/Invalid signature/);
    expect(() => native(hash, 27n, new Uint8Array([1]), bigIntToBytes(N))).toThrow(/Invalid signature/);
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
