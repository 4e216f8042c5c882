// Compute units of the subscription notifications one WebSocket connection sends: priced by the
// bytes pushed (the hosted provider's bandwidth pricing, wsLimits.ts `notificationCuPerByte`),
// taken from the key's bucket like a call's units and recorded in its usage as `eth_subscription`.
// Fractions of a unit carry over to the next notification, so small pushes are not rounded up
// one by one. When the bucket cannot pay, the caller ends the connection with the reason given.
import type { ApiKeyRecord } from '../../store/types.js';
import type { GatewayMetrics } from '../ops/gatewayMetrics.js';
import type { RateDecision, RateLimiter } from '../policy/tokenBucket.js';
import type { TierPolicy } from '../policy/tiers.js';
import type { UsageRecorder } from '../usage/usageRecorder.js';

/** Usage row of notification compute units (README: "WebSocket"); they count as no request. */
export const NOTIFICATION_USAGE_METHOD = 'eth_subscription';

export interface NotificationBillingDeps {
  tiers: TierPolicy;
  limiter: RateLimiter;
  usage: UsageRecorder;
  metrics: GatewayMetrics;
}

/** Undefined when paid, else the close reason (at most 123 bytes, the WebSocket close limit). */
export type MeterVerdict = string | undefined;

export class NotificationMeter {
  #carry = 0;

  constructor(
    private readonly deps: NotificationBillingDeps,
    private readonly key: Pick<ApiKeyRecord, 'id' | 'tier'>,
    private readonly cuPerByte: number,
  ) {}

  /** Charges one notification of `bytes`; synchronous unless the limiter is (one shared over the network). */
  charge(bytes: number): MeterVerdict | Promise<MeterVerdict> {
    if (this.cuPerByte <= 0) return undefined;
    this.#carry += bytes * this.cuPerByte;
    // The epsilon absorbs float drift (25 bytes at 0.04 must make one unit).
    const units = Math.floor(this.#carry + 1e-9);
    if (units === 0) return undefined;
    const { tiers, limiter } = this.deps;
    const { id, tier } = this.key;
    const limit = tiers.limit(tier);
    if (!limit) return void this.#paid(units);
    if (units > limit.burstCu) return `a notification of ${bytes} bytes costs ${units} CU, over the ${tier} tier's ${limit.burstCu} CU at once`;
    const decide = (decision: RateDecision): MeterVerdict => {
      if (decision.ok) return void this.#paid(units);
      this.deps.metrics.rateLimited(tier);
      return `notifications over the ${tier} tier's ${limit.cuPerSecond} CU/s compute-unit budget; retry in ${decision.retryAfterSec} s`;
    };
    const decision = limiter.take(id, units, limit);
    return decision instanceof Promise ? decision.then(decide) : decide(decision);
  }

  #paid(units: number): void {
    this.#carry -= units;
    this.deps.usage.record(this.key.id, NOTIFICATION_USAGE_METHOD, units, 0);
    this.deps.metrics.computeUnits(this.key.tier, units);
  }
}
