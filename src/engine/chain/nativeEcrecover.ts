// Public-key recovery through libsecp256k1's native Node addon (the `secp256k1` package, whose
// prebuilt binary loads without a compiler), with the WebAssembly build (wasmEcrecover.ts) as the
// fallback when the addon cannot be loaded on this platform. The native one recovers a key in about
// 80 µs against the WebAssembly one's 350 µs here, and every transaction the chain admits needs one.
import { createRequire } from 'node:module';
import { calculateSigRecovery, concatBytes, setLengthLeft } from '@ethereumjs/util';
import { wasmEcrecover } from './wasmEcrecover.js';

/** @ethereumjs/util's `ecrecover` contract: 64-byte uncompressed key, throws when invalid. */
export type Ecrecover = (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint) => Uint8Array;

/** The part of the `secp256k1` package's API used here (it ships no types). */
export interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recovery: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

/**
 * The addon itself, never the package's pure-JS fallback (elliptic, slower than the WebAssembly
 * build): `secp256k1/bindings` throws when the binary does not load.
 */
function requireAddon(): NativeSecp256k1 {
  return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1;
}

/** An ecrecover over `addon`. */
export function createNativeEcrecover(addon: NativeSecp256k1): Ecrecover {
  return (msgHash, v, r, s, chainId) => {
    const recovery = calculateSigRecovery(v, chainId);
    if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
    let publicKey: Uint8Array;
    try {
      publicKey = addon.ecdsaRecover(concatBytes(setLengthLeft(r, 32), setLengthLeft(s, 32)), Number(recovery), msgHash, false);
    } catch {
      throw new Error('Invalid signature: no public key recovers from it');
    }
    return publicKey.subarray(1);
  };
}

/**
 * The fastest ecrecover that loads here: the native addon's, else the WebAssembly one. `load` is
 * for tests (an addon that fails to load); `onFallback` hears why the addon was not used.
 */
export function chooseEcrecover(load: () => NativeSecp256k1 = requireAddon, onFallback?: (error: unknown) => void): Ecrecover {
  try {
    return createNativeEcrecover(load());
  } catch (error) {
    onFallback?.(error);
    return wasmEcrecover;
  }
}
