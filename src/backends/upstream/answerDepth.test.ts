import { describe, expect, it } from 'vitest';
import { MAX_ANSWER_DEPTH, isNestedDeeperThan } from './answerDepth.js';

describe('isNestedDeeperThan', () => {
  it('default: real answers, brackets inside strings and escaped quotes do not count', () => {
    const frames = (n: number): string => (n === 0 ? '{"type":"CALL"}' : `{"type":"CALL","calls":[${frames(n - 1)}]}`);
    expect(isNestedDeeperThan(`{"jsonrpc":"2.0","id":1,"result":${frames(1024)}}`, MAX_ANSWER_DEPTH)).toBe(false);
    expect(isNestedDeeperThan(`{"result":"${'[{'.repeat(10_000)}\\"${'['.repeat(10_000)}"}`, MAX_ANSWER_DEPTH)).toBe(false);
    expect(isNestedDeeperThan('[[[]]]', 3)).toBe(false);
  });

  it('error: nesting past the bound is found, in arrays and objects alike', () => {
    expect(isNestedDeeperThan('[[[[]]]]', 3)).toBe(true);
    expect(isNestedDeeperThan(`{"result":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, MAX_ANSWER_DEPTH)).toBe(true);
    expect(isNestedDeeperThan(`{"result":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`, MAX_ANSWER_DEPTH)).toBe(true);
  });
});
