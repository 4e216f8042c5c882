// geth's wording for ethereumjs's halts, including the located form ethereumjs gives an invalid jump.
import { describe, expect, it } from 'vitest';
import { evmErrorToGethText } from './evmErrorText.js';

describe('evmErrorToGethText', () => {
  it('behavior: an invalid jump is geth\'s "invalid jump destination", with or without ethereumjs\'s location', () => {
    expect(evmErrorToGethText('invalid JUMP')).toBe('invalid jump destination');
    expect(evmErrorToGethText('invalid JUMP at 0x1234abcd/0x5fbdb2315678afecb367f032d93f642f64180aa3:17')).toBe('invalid jump destination');
  });

  it('behavior: the other halts ethereumjs words differently map to geth; the rest pass unchanged', () => {
    expect(evmErrorToGethText('code store out of gas')).toBe('contract creation code storage out of gas');
    expect(evmErrorToGethText('static state change')).toBe('write protection');
    expect(evmErrorToGethText('out of gas')).toBe('out of gas');
    expect(evmErrorToGethText('code size to deposit exceeds maximum code size')).toBe('max code size exceeded');
    expect(evmErrorToGethText('create collision')).toBe('contract address collision');
    expect(evmErrorToGethText('insufficient balance')).toBe('insufficient balance for transfer');
    expect(evmErrorToGethText('stack underflow')).toBe('stack underflow');
    expect(evmErrorToGethText('value out of range')).toBe('value out of range');
  });

  it('behavior: the texts are the tracers\' (one map): a stack overflow is geth\'s "stack limit reached"; an invalid opcode, whose opcode a call outcome does not carry, keeps its text', () => {
    expect(evmErrorToGethText('stack overflow')).toBe('stack limit reached 1024 (1023)');
    expect(evmErrorToGethText('invalid opcode')).toBe('invalid opcode');
  });

  it("behavior: a call straight to a precompile fails with the precompile's own error, never a revert", () => {
    expect(evmErrorToGethText('revert', true)).toBe('bn256: malformed point');
    expect(evmErrorToGethText('value out of range', true)).toBe('invalid input length');
    expect(evmErrorToGethText('invalid input length', true)).toBe('invalid input length');
    expect(evmErrorToGethText('out of gas', true)).toBe('out of gas');
  });
});
