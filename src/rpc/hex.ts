// Hex codecs for the wire: quantities are bigint inside and minimal `0x` hex outside; byte strings
// are Uint8Array inside and even-length lowercase `0x` hex outside.

export type Hex = `0x${string}`;

const HEX_TABLE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A bigint or number as a JSON-RPC quantity: `0x0`, `0x1a`, no leading zeros. */
export function quantityToHex(value: bigint | number): Hex {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a quantity: ${value}`);
  } else if (value < 0n) throw new RangeError(`not a quantity: ${value}`);
  return `0x${value.toString(16)}`;
}

/** Bytes as `0x`-prefixed lowercase hex (`0x` when empty). */
export function bytesToHex(bytes: Uint8Array): Hex {
  let out = '0x';
  for (let i = 0; i < bytes.length; i++) out += HEX_TABLE[bytes[i]!];
  return out as Hex;
}

/** `0x`-prefixed (or bare) even-length hex to bytes. Throws RangeError on bad input. */
export function hexToBytes(hex: string): Uint8Array {
  const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (body.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(body)) throw new RangeError('invalid hex data');
  const out = new Uint8Array(body.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(body.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** A hex quantity (or any `0x` hex) to bigint. */
export function hexToBigInt(hex: string): bigint {
  return hex === '0x' ? 0n : BigInt(hex);
}

/** bigint as a 32-byte zero-padded word (storage keys and values in stateDiff / prestate). */
export function bigIntToWordHex(value: bigint): Hex {
  return `0x${value.toString(16).padStart(64, '0')}`;
}

/** Bytes left-padded to 32 bytes as hex. */
export function bytesToWordHex(bytes: Uint8Array): Hex {
  return `0x${bytesToHex(bytes).slice(2).padStart(64, '0')}`;
}
