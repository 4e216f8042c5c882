// What every ecrecover the chain plugs into ethereumjs must do, checked against @ethereumjs/util's
// pure-JS one: the same keys for low-s and high-s signatures (the ECRECOVER precompile accepts
// high-s) in every v form, and the same refusals.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bigIntToBytes, ecrecover } from '@ethereumjs/util';
import { expect } from 'vitest';
import type { Ecrecover } from '../nativeEcrecover.js';

const N = secp256k1.Point.CURVE().n;

/** `recover` gives @ethereumjs/util's keys for 20 signatures, each in its v forms and with high s. */
export function expectSameRecoveries(recover: Ecrecover): void {
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
    for (const [v, s] of variants) expect(recover(hash, v, r, s)).toEqual(ecrecover(hash, v, r, s));
    const chainV = 31337n * 2n + 35n + BigInt(recovery);
    expect(recover(hash, chainV, r, bigIntToBytes(sig.s), 31337n)).toEqual(ecrecover(hash, chainV, r, bigIntToBytes(sig.s), 31337n));
  }
}

/** `recover` refuses an invalid v, a zero r and an s out of range. */
export function expectRefusals(recover: Ecrecover): void {
  const hash = keccak_256(new Uint8Array([1]));
  expect(() => recover(hash, 29n, new Uint8Array([1]), new Uint8Array([1]))).toThrow(/v value/);
  expect(() => recover(hash, 27n, new Uint8Array([0]), new Uint8Array([1]))).toThrow(/Invalid signature/);
  expect(() => recover(hash, 27n, new Uint8Array([1]), bigIntToBytes(N))).toThrow(/Invalid signature/);
}
