// 256-bit words as BigInt for the interpreter: two's complement, exponentiation mod 2^256, and
// the conversions between words and bytes on the hot path (32-byte loads and stores through a DataView).

export const M256 = (1n << 256n) - 1n;
export const SIGN = 1n << 255n;

export function toSigned(x: bigint): bigint {
  return x & SIGN ? x - (1n << 256n) : x;
}

export function exp(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  base &= M256;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) & M256;
    exponent >>= 1n;
    if (exponent > 0n) base = (base * base) & M256;
  }
  return result;
}

/** CLZ (EIP-7939): the zero bits above a word's highest set bit; 256 for zero. */
export function leadingZeros(x: bigint): number {
  if (x === 0n) return 256;
  const hex = x.toString(16);
  return 256 - (hex.length - 1) * 4 - (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

const MASK64 = (1n << 64n) - 1n;
const scratchBytes = new Uint8Array(32);
const scratch = new DataView(scratchBytes.buffer);

/**
 * The 32 bytes at `offset` as a word (big-endian). A BigInt operation allocates, so words with zero
 * high halves (counters, lengths, addresses below 2^128) skip the shifts and ORs of the others.
 */
export function viewToWord(view: DataView, offset: number): bigint {
  if ((view.getUint32(offset) | view.getUint32(offset + 4) | view.getUint32(offset + 8) | view.getUint32(offset + 12)) === 0) {
    if ((view.getUint32(offset + 16) | view.getUint32(offset + 20)) === 0) return view.getBigUint64(offset + 24);
    return (view.getBigUint64(offset + 16) << 64n) | view.getBigUint64(offset + 24);
  }
  return (view.getBigUint64(offset) << 192n) | (view.getBigUint64(offset + 8) << 128n) | (view.getBigUint64(offset + 16) << 64n) | view.getBigUint64(offset + 24);
}

/** Writes a word (0 <= word < 2^256) as 32 bytes at `offset`; setBigUint64 keeps the low 64 bits, so no masks. */
export function wordToView(word: bigint, view: DataView, offset: number): void {
  if (word <= MASK64) {
    view.setUint32(offset, 0);
    view.setUint32(offset + 4, 0);
    view.setUint32(offset + 8, 0);
    view.setUint32(offset + 12, 0);
    view.setUint32(offset + 16, 0);
    view.setUint32(offset + 20, 0);
    view.setBigUint64(offset + 24, word);
    return;
  }
  view.setBigUint64(offset + 24, word);
  view.setBigUint64(offset + 16, word >> 64n);
  view.setBigUint64(offset + 8, word >> 128n);
  view.setBigUint64(offset, word >> 192n);
}

/** `length` bytes from `start` as a word (big-endian; bytes past the end read as zero, as calldata does). */
export function bytesToWord(bytes: Uint8Array, start: number, length: number): bigint {
  if (length === 32 && start + 32 <= bytes.length) {
    scratchBytes.set(bytes.subarray(start, start + 32));
    return viewToWord(scratch, 0);
  }
  if (length <= 32) {
    scratchBytes.fill(0);
    const end = Math.min(bytes.length, start + length);
    if (end > start) scratchBytes.set(bytes.subarray(start, end), 32 - length);
    return viewToWord(scratch, 0);
  }
  let hex = '';
  for (let i = 0; i < length; i++) {
    const b = start + i < bytes.length ? bytes[start + i]! : 0;
    hex += b < 16 ? '0' + b.toString(16) : b.toString(16);
  }
  return BigInt('0x' + hex);
}

/** A word as 32 bytes (big-endian), in a new array. */
export function wordBytes(word: bigint): Uint8Array {
  wordToView(word, scratch, 0);
  return scratchBytes.slice();
}

/** The low 20 bytes of a word: an address, in a new array. */
export function addressBytes(address: bigint): Uint8Array {
  wordToView(address, scratch, 0);
  return scratchBytes.slice(12);
}

export function bytesToBig(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : bytesToWord(bytes, 0, bytes.length);
}

/** PUSH of up to 6 bytes as a number (exact in a double), then one BigInt. */
export function bytesToSmall(code: Uint8Array, start: number, n: number): bigint {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + code[start + i]!;
  return v < 256 ? SMALL[v]! : BigInt(v);
}

/** 0n..255n, allocated once. */
const SMALL: bigint[] = Array.from({ length: 256 }, (_, i) => BigInt(i));
