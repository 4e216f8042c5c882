// KECCAK256 for the interpreter (and the chain's Common, chainConfig.ts): our own keccak-f[1600]
// in WebAssembly (keccakWasm.ts), compiled synchronously when this module loads; padding and the
// copies into its memory are here. If WebAssembly is unavailable, @noble/hashes.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { KECCAK_LAYOUT, KECCAK_RATE, type KeccakExports, instantiateKeccak } from './keccakWasm.js';

function tryInstantiate(): KeccakExports | undefined {
  try {
    return instantiateKeccak();
  } catch {
    return undefined;
  }
}

const wasm = tryInstantiate();
// The module never grows its memory, so these views stay valid.
const heap = wasm ? new Uint8Array(wasm.memory.buffer) : new Uint8Array(32);
const digest = new DataView(heap.buffer, KECCAK_LAYOUT.state, 32);
const heapView = new DataView(heap.buffer);
const INPUT = KECCAK_LAYOUT.input;
const CHUNK_BLOCKS = KECCAK_LAYOUT.inputBlocks;

/**
 * The input block is zero from here to its last byte (which each hash sets): only the bytes the
 * last hash wrote need clearing, not the whole block (the same short length hashed again clears none).
 */
let dirtyEnd = 0;

/**
 * Absorbs bytes[start, start+length) with keccak's padding; the digest is then heap[0..32). With
 * `view` (a DataView over the same bytes) a short tail is copied four bytes a step.
 */
function hashInto(exports: KeccakExports, bytes: Uint8Array, start: number, length: number, view?: DataView): void {
  let offset = start;
  let remaining = length;
  let fresh = 1;
  while (remaining >= KECCAK_RATE) {
    const blocks = Math.min(Math.floor(remaining / KECCAK_RATE), CHUNK_BLOCKS);
    const size = blocks * KECCAK_RATE;
    heap.set(bytes.subarray(offset, offset + size), INPUT);
    dirtyEnd = KECCAK_RATE - 1;
    exports.absorb(INPUT, blocks, fresh);
    fresh = 0;
    offset += size;
    remaining -= size;
  }
  // Short tails are copied byte by byte: cheaper than a subarray and a set for a word or two.
  if (remaining <= 64) {
    let i = 0;
    if (view !== undefined) for (; i + 4 <= remaining; i += 4) heapView.setUint32(INPUT + i, view.getUint32(offset + i));
    for (; i < remaining; i++) heap[INPUT + i] = bytes[offset + i]!;
  } else {
    heap.set(bytes.subarray(offset, offset + remaining), INPUT);
  }
  if (dirtyEnd > remaining + 1) heap.fill(0, INPUT + remaining + 1, INPUT + dirtyEnd);
  dirtyEnd = Math.min(remaining + 1, KECCAK_RATE - 1);
  heap[INPUT + remaining] = 0x01;
  heap[INPUT + KECCAK_RATE - 1] = remaining === KECCAK_RATE - 1 ? 0x81 : 0x80;
  exports.absorb(INPUT, 1, fresh);
}

/** Keccak-256 (Ethereum's, padding 0x01) of `data`, as a new array. */
export function keccak256(data: Uint8Array): Uint8Array {
  if (wasm === undefined) return keccak_256(data);
  hashInto(wasm, data, 0, data.length);
  return heap.slice(KECCAK_LAYOUT.state, KECCAK_LAYOUT.state + 32);
}

/**
 * The hash of bytes[start, start+length) as a 256-bit word (big-endian), without copying the input
 * out; `view`, a DataView over the same bytes (the interpreter's memory keeps one), copies faster.
 */
export function keccak256Word(bytes: Uint8Array, start = 0, length = bytes.length - start, view?: DataView): bigint {
  if (wasm === undefined) {
    const view = new DataView(keccak_256(bytes.subarray(start, start + length)).buffer);
    return (view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24);
  }
  hashInto(wasm, bytes, start, length, view);
  return (digest.getBigUint64(0) << 192n) | (digest.getBigUint64(8) << 128n) | (digest.getBigUint64(16) << 64n) | digest.getBigUint64(24);
}
