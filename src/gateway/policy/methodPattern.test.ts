import { describe, expect, it } from 'vitest';
import { createMethodRules } from './methodPattern.js';

describe('createMethodRules', () => {
  it('behavior: an exact name wins over the longest matching prefix', () => {
    const rules = createMethodRules({ 'trace_*': 1, 'trace_replay*': 2, trace_get: 3 });
    expect([rules.get('trace_call'), rules.get('trace_replayTransaction'), rules.get('trace_get'), rules.get('eth_call')]).toEqual([1, 2, 3, undefined]);
  });
});
