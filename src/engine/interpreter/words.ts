// 256-bit words as BigInt for the interpreter: two's complement, exponentiation mod 2^256, and
// the conversions between words and bytes on the hot path (32-byte loads through a DataView).
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';

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

const MASK64 = (1n << 64n) - 1n;
const scratchBytes = new Uint8Array(32);
const scratch = new DataView(scratchBytes.buffer);

export function bytesToWord(bytes: Uint8Array, start: number, length: number): bigint {
  if (length === 32 && start + 32 <= bytes.length) {
    scratchBytes.set(bytes.subarray(start, start + 32));
    return (scratch.getBigUint64(0) << 192n) | (scratch.getBigUint64(8) << 128n) | (scratch.getBigUint64(16) << 64n) | scratch.getBigUint64(24);
  }
  let hex = '';
  for (let i = 0; i < length; i++) {
    const b = start + i < bytes.length ? bytes[start + i]! : 0;
    hex += b < 16 ? '0' + b.toString(16) : b.toString(16);
  }
  return length === 0 ? 0n : BigInt('0x' + hex);
}

export function wordToBytes(word: bigint, out: Uint8Array, offset: number): void {
  scratch.setBigUint64(0, word >> 192n);
  scratch.setBigUint64(8, (word >> 128n) & MASK64);
  scratch.setBigUint64(16, (word >> 64n) & MASK64);
  scratch.setBigUint64(24, word & MASK64);
  out.set(scratchBytes, offset);
}

export function addressBytes(address: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(address), 20);
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
