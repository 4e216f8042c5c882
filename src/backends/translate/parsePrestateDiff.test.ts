// Unit tests of the prestateTracer parsers: diffMode into touched accounts (rendered back as diff and stateDiff), anvil's dialect, faults.
import { describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../engine/record/types.js';
import { renderParityStateDiff } from '../../engine/render/parityStateDiff.js';
import { renderPrestateTracer } from '../../engine/render/prestateTracer.js';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { accountsFromPrestateDiff, prestateTouchedNoStorage } from './parsePrestateDiff.js';

const word = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';
const D = '0x00000000000000000000000000000000000000d4';

// A geth diffMode answer: A pays, B has a slot changed and one cleared, C is born, D is destroyed.
const diff = {
  post: {
    [A]: { balance: '0x5', nonce: 2 },
    [B]: { storage: { [word(1)]: word(9) } },
    [C]: { balance: '0x7', code: '0x6000', codeHash: '0x' + 'ab'.repeat(32), nonce: 1, storage: { [word(0)]: word(3) } },
  },
  pre: {
    [A]: { balance: '0x10', nonce: 1 },
    [B]: { balance: '0x1', code: '0x60', codeHash: '0x' + 'cd'.repeat(32), storage: { [word(1)]: word(4), [word(2)]: word(8) } },
    [D]: { balance: '0x2', code: '0x61', codeHash: '0x' + 'ef'.repeat(32), nonce: 1 },
  },
};

const recordWith = (accounts: ExecutionRecord['accounts']): ExecutionRecord => ({ accounts } as ExecutionRecord);

describe('accountsFromPrestateDiff', () => {
  it('default: born, changed, cleared and destroyed accounts render back to the same diff and to stateDiff', () => {
    const accounts = accountsFromPrestateDiff(diff);
    expect(renderPrestateTracer(recordWith(accounts), { diffMode: true })).toEqual(diff);
    expect(renderParityStateDiff(recordWith(accounts))).toEqual({
      [A]: { balance: { '*': { from: '0x10', to: '0x5' } }, code: '=', nonce: { '*': { from: '0x1', to: '0x2' } }, storage: {} },
      [B]: { balance: '=', code: '=', nonce: '=', storage: { [word(1)]: { '*': { from: word(4), to: word(9) } }, [word(2)]: { '*': { from: word(8), to: word(0) } } } },
      [C]: { balance: { '+': '0x7' }, code: { '+': '0x6000' }, nonce: { '+': '0x1' }, storage: { [word(0)]: { '+': word(3) } } },
      [D]: { balance: { '-': '0x2' }, code: { '-': '0x61' }, nonce: { '-': '0x1' }, storage: {} },
    });
  });

  it("args: anvil's dialect (no codeHash, a touched empty account as {balance: 0x0}) parses; the empty account stays absent", () => {
    const accounts = accountsFromPrestateDiff({ pre: { [A]: { balance: '0x0' }, [B]: { balance: '0x1', code: '0x60' } }, post: { [B]: { balance: '0x2' } } });
    expect(renderParityStateDiff(recordWith(accounts))).toEqual({ [B]: { balance: { '*': { from: '0x1', to: '0x2' } }, code: '=', nonce: '=', storage: {} } });
  });

  it.each([
    ['no pre', { post: {} }, /pre: is not an object/],
    ['a bad address', { pre: { '0x12': {} }, post: {} }, /`address` is not valid/],
    ['a string nonce', { pre: { [A]: { balance: '0x1', nonce: '0x1' } }, post: {} }, /`nonce` is not a JSON number/],
    ['a storage value over 32 bytes', { pre: { [A]: { balance: '0x1', storage: { [word(1)]: '0x' + '1'.repeat(65) } } }, post: {} }, /is not a 32-byte word/],
  ])('error: %s is the upstream\'s fault', (_name, bad, message) => {
    expect(() => accountsFromPrestateDiff(bad)).toThrow(UpstreamTraceMalformedError);
    expect(() => accountsFromPrestateDiff(bad)).toThrow(message);
  });
});

describe('prestateTouchedNoStorage', () => {
  it('default: true only when no account lists a slot', () => {
    expect(prestateTouchedNoStorage({ [A]: { balance: '0x1' }, [B]: { balance: '0x0', storage: {} } })).toBe(true);
    expect(prestateTouchedNoStorage({ [A]: { balance: '0x1', storage: { [word(0)]: word(0) } } })).toBe(false);
  });
});
