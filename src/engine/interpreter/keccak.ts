// KECCAK256 for the interpreter: hash-wasm's WebAssembly keccak (about 8× @noble/hashes' on a
// 32-byte input, measured here), which must be instantiated once asynchronously; until then, and
// if it cannot load, @noble/hashes.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { type IHasher, createKeccak } from 'hash-wasm';

let hasher: IHasher | undefined;
let loading: Promise<void> | undefined;

/** Instantiates the WebAssembly hasher (once per thread). */
export function loadKeccak(): Promise<void> {
  loading ??= createKeccak(256).then(
    (h) => {
      hasher = h;
    },
    () => undefined,
  );
  return loading;
}

export function keccak256(data: Uint8Array): Uint8Array {
  if (hasher === undefined) return keccak_256(data);
  hasher.init();
  hasher.update(data);
  return hasher.digest('binary');
}

/** The hash as a 256-bit word. */
export function keccak256Word(data: Uint8Array): bigint {
  const view = new DataView(keccak256(data).buffer);
  return (view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24);
}
