// The wire's byte codecs against Node's own hex codec: round trips of random lengths (both sides of
// the length where bytesToHex switches to Buffer), either prefix, and every malformed input refused.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from './hex.js';

describe('hex codecs', () => {
  it('behavior: random bytes of 0 to 200 bytes round-trip and match Buffer hex', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = new Uint8Array(randomBytes(length));
      const hex = bytesToHex(bytes);
      expect(hex).toBe(`0x${Buffer.from(bytes).toString('hex')}`);
      expect(hexToBytes(hex)).toEqual(bytes);
      expect(hexToBytes(hex.toUpperCase().replace('0X', '0X'))).toEqual(bytes);
      expect(hexToBytes(hex.slice(2))).toEqual(bytes);
    }
    // A view into a larger buffer encodes only its own bytes.
    const backing = new Uint8Array(randomBytes(64));
    expect(bytesToHex(backing.subarray(7, 40))).toBe(`0x${Buffer.from(backing.subarray(7, 40)).toString('hex')}`);
  });

  it.each(['0x0', '0xg0', '0x 0', '0x0z', 'xx00', '0x00\u00e9a', '0x\u0660\u0660', '0x00-1'])('error: %j is refused with RangeError', (hex) => {
    expect(() => hexToBytes(hex)).toThrow(RangeError);
  });
});
