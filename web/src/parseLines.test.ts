// Pasted lists checked line by line before anything is sent.
import { describe, expect, it } from 'vitest';
import { parseAddresses, parseNftFilters } from './parseLines';

const A = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

describe('parseLines', () => {
  it('default: one address a line, or separated by commas, spaces, semicolons or quotes (CSV); duplicates kept once', () => {
    expect(parseAddresses(`${A}\n"${A.toUpperCase().replace('0X', '0x')}", 0x00000000000000000000000000000000000000aa;\n\n`).addresses).toEqual([A, '0x00000000000000000000000000000000000000aa']);
  });

  it('error: malformed entries are reported with their line and why, the good ones still read', () => {
    const { addresses, bad } = parseAddresses(`${A}\n0x1234\nhello\n0x${'g'.repeat(40)}`);
    expect(addresses).toEqual([A]);
    expect(bad).toEqual([
      { line: 2, text: '0x1234', problem: 'has 4 hex digits, needs 40' },
      { line: 3, text: 'hello', problem: 'is not a 0x address' },
      { line: 4, text: `0x${'g'.repeat(40)}`, problem: 'is not a 0x address' },
    ]);
  });

  it('default: NFT filters are contract[,token id] with * for any contract; bad lines named', () => {
    expect(parseNftFilters(`${A},7\n*\n${A} 0x1f`)).toEqual({ filters: [{ contract_address: A, token_id: '7' }, { contract_address: '*' }, { contract_address: A, token_id: '0x1f' }], bad: [] });
    expect(parseNftFilters(`${A},seven\nnope\n${A},1,2`).bad.map((b) => [b.line, b.problem])).toEqual([
      [1, 'token id is not a decimal or 0x number'],
      [2, 'contract is not a 0x address (or *)'],
      [3, 'expected contract[,token id]'],
    ]);
  });
});
