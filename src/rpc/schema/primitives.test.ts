// Block parameters: what each form parses to, as anvil 1.7.1 answers them (checked against the binary).
import { describe, expect, it } from 'vitest';
import { BlockNumberOrHash, BlockNumberOrTag } from './primitives.js';

describe('block parameters', () => {
  it('args: a block number or tag takes hex, a decimal JSON number or a decimal string (cast rpc trace_block 5 sends 5)', () => {
    expect(BlockNumberOrTag.parse('0x5')).toEqual({ kind: 'number', number: 5n });
    expect(BlockNumberOrTag.parse(5)).toEqual({ kind: 'number', number: 5n });
    expect(BlockNumberOrTag.parse('5')).toEqual({ kind: 'number', number: 5n });
    expect(BlockNumberOrTag.parse(0)).toEqual({ kind: 'number', number: 0n });
    expect(BlockNumberOrTag.parse('18446744073709551615')).toEqual({ kind: 'number', number: 2n ** 64n - 1n });
    expect(BlockNumberOrTag.parse('latest')).toEqual({ kind: 'tag', tag: 'latest' });
  });

  it('error: fractions, negatives, numbers past 64 bits or past exact JSON integers are refused with the accepted forms named', () => {
    for (const bad of [5.5, -1, 2 ** 53, '18446744073709551616', '-1', '5.0', '', 'head']) {
      const result = BlockNumberOrTag.safeParse(bad);
      expect(result.success, JSON.stringify(bad)).toBe(false);
      expect(result.error!.issues[0]!.message, JSON.stringify(bad)).toBe('expected a block number (hex or decimal) or one of latest, earliest, pending, safe, finalized');
    }
  });

  it('error: an EIP-1898 block id (eth_getBalance, eth_call) stays hex, as anvil refuses 5 and "5" there', () => {
    expect(BlockNumberOrHash.safeParse(5).success).toBe(false);
    expect(BlockNumberOrHash.safeParse('5').success).toBe(false);
    expect(BlockNumberOrHash.parse('0x5')).toEqual({ kind: 'number', number: 5n });
  });
});
