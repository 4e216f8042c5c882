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
  if (bytes.length > 16) return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex')}`;
  let out = '0x';
  for (let i = 0; i < bytes.length; i++) out += HEX_TABLE[bytes[i]!];
  return out as Hex;
}

/** A hex digit's value by its character code; -1 for anything else. */
const NIBBLE = Int8Array.from({ length: 128 }, (_, code) => {
  const c = String.fromCharCode(code);
  return /[0-9a-fA-F]/.test(c) ? parseInt(c, 16) : -1;
});
const nibbleAt = (text: string, index: number): number => {
  const code = text.charCodeAt(index);
  return code < 128 ? NIBBLE[code]! : -1;
};

/** Whether `text[from..to)` is all hex digits (either case). */
export function isHexDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (nibbleAt(text, i) < 0) return false;
  return true;
}

/** `0x`-prefixed (or bare) even-length hex to bytes. Throws RangeError on bad input. */
export function hexToBytes(hex: string): Uint8Array {
  const start = hex.charCodeAt(0) === 48 && (hex.charCodeAt(1) | 32) === 120 ? 2 : 0; // "0x" or "0X"
  const digits = hex.length - start;
  if (digits % 2 !== 0) throw new RangeError('invalid hex data');
  const out = new Uint8Array(digits / 2);
  for (let i = 0, at = start; i < out.length; i++, at += 2) {
    const high = nibbleAt(hex, at);
    const low = nibbleAt(hex, at + 1);
    if ((high | low) < 0) throw new RangeError('invalid hex data');
    out[i] = (high << 4) | low;
  }
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
