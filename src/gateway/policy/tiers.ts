// Which tier a method needs, and each tier's compute-unit budget. Defaults follow the reference
// provider: trace and debug-trace methods need a paid tier (`trace_transaction` needs payg).
import type { ApiKeyTier } from '../../store/types.js';
import { API_KEY_TIERS } from '../../store/types.js';
import { createMethodRules } from './methodPattern.js';

const RANK: Record<ApiKeyTier, number> = { free: 0, payg: 1, enterprise: 2 };

/** Minimum tier per method (exact name or `prefix*`); methods not listed are open to every tier. */
export const DEFAULT_METHOD_TIERS: Readonly<Record<string, ApiKeyTier>> = {
  'trace_*': 'payg',
  'debug_trace*': 'payg',
};

/** Compute units per second per tier; `null` means no limit. Burst = budget × burstWindowSec. */
export const DEFAULT_TIER_BUDGETS: Readonly<Record<ApiKeyTier, number | null>> = {
  free: 330,
  payg: 10_000,
  enterprise: null,
};

export const DEFAULT_BURST_WINDOW_SEC = 1;

export interface TierPolicyOptions {
  /** Merged over DEFAULT_METHOD_TIERS; map a pattern to `free` to open it up. */
  methodTiers?: Readonly<Record<string, ApiKeyTier>>;
  /** Merged over DEFAULT_TIER_BUDGETS. */
  cuPerSecond?: Partial<Record<ApiKeyTier, number | null>>;
  burstWindowSec?: number;
}

export interface TierLimit {
  cuPerSecond: number;
  burstCu: number;
}

export interface TierPolicy {
  /** The lowest tier allowed to call `method`. */
  requiredTier(method: string): ApiKeyTier;
  allows(tier: ApiKeyTier, method: string): boolean;
  /** The tier's compute-unit bucket, or null when the tier is unlimited. */
  limit(tier: ApiKeyTier): TierLimit | null;
}

export function isApiKeyTier(value: unknown): value is ApiKeyTier {
  return typeof value === 'string' && (API_KEY_TIERS as readonly string[]).includes(value);
}

export function createTierPolicy(options: TierPolicyOptions = {}): TierPolicy {
  const rules = createMethodRules({ ...DEFAULT_METHOD_TIERS, ...options.methodTiers });
  const budgets = { ...DEFAULT_TIER_BUDGETS, ...options.cuPerSecond };
  const windowSec = options.burstWindowSec ?? DEFAULT_BURST_WINDOW_SEC;
  if (!(windowSec > 0)) throw new RangeError('burstWindowSec must be positive');
  const limits = new Map<ApiKeyTier, TierLimit | null>();
  for (const tier of API_KEY_TIERS) {
    const cps = budgets[tier];
    if (cps !== null && !(cps > 0)) throw new RangeError(`compute units per second of tier ${tier} must be positive or null`);
    limits.set(tier, cps === null ? null : { cuPerSecond: cps, burstCu: cps * windowSec });
  }
  const requiredTier = (method: string) => rules.get(method) ?? 'free';
  return {
    requiredTier,
    allows: (tier, method) => RANK[tier] >= RANK[requiredTier(method)],
    limit: (tier) => limits.get(tier) ?? null,
  };
}
