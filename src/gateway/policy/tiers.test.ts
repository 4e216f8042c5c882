import { describe, expect, it } from 'vitest';
import { createTierPolicy, DEFAULT_TIER_BUDGETS } from './tiers.js';

describe('createTierPolicy', () => {
  it('default: trace and debug-trace methods need payg, everything else is free', () => {
    const p = createTierPolicy();
    expect(p.requiredTier('trace_transaction')).toBe('payg');
    expect(p.requiredTier('debug_traceCall')).toBe('payg');
    expect(p.requiredTier('eth_call')).toBe('free');
    expect(p.allows('free', 'trace_transaction')).toBe(false);
    expect(p.allows('payg', 'trace_transaction')).toBe(true);
    expect(p.allows('enterprise', 'trace_replayTransaction')).toBe(true);
  });

  it('args: rules merge over the defaults and budgets become buckets', () => {
    const p = createTierPolicy({ methodTiers: { 'trace_replay*': 'enterprise', debug_traceCall: 'free' }, cuPerSecond: { free: 100 }, burstWindowSec: 3 });
    expect(p.requiredTier('trace_replayBlockTransactions')).toBe('enterprise');
    expect(p.allows('payg', 'trace_replayTransaction')).toBe(false);
    expect(p.allows('free', 'debug_traceCall')).toBe(true);
    expect(p.limit('free')).toEqual({ cuPerSecond: 100, burstCu: 300 });
    expect(p.limit('payg')).toEqual({ cuPerSecond: DEFAULT_TIER_BUDGETS.payg, burstCu: 3 * DEFAULT_TIER_BUDGETS.payg! });
    expect(p.limit('enterprise')).toBeNull();
  });

  it('error: refuses a non-positive budget or window', () => {
    expect(() => createTierPolicy({ cuPerSecond: { free: 0 } })).toThrow(/free/);
    expect(() => createTierPolicy({ burstWindowSec: 0 })).toThrow(/burstWindowSec/);
  });
});
