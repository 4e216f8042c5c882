// flatHex gives exactly the string ethereumjs's encoder gives.
import { bytesToUnprefixedHex } from '@ethereumjs/util';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flatHex } from './flatHex.js';

describe('flatHex', () => {
  it('default: equals bytesToUnprefixedHex for empty, short, 32-byte and offset views', () => {
    const big = new Uint8Array(randomBytes(80));
    for (const bytes of [new Uint8Array(0), Uint8Array.of(0, 1, 0xab, 0xff), new Uint8Array(randomBytes(32)), big.subarray(7, 39)]) {
      expect(flatHex(bytes)).toBe(bytesToUnprefixedHex(bytes));
    }
  });
});
