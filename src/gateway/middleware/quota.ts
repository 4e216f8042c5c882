// Compute-unit charging of one request: its body's size and JSON values before parsing, its calls' costs up front
// and as a whole (no debt: what can never fit the key's bucket is refused), and settlement as the
// calls finish (calls refused before any work are given back and not recorded in usage).
import type { ApiKeyRecord } from '../../store/types.js';
import { CostOverLimitError, RateLimitedError, type RpcError } from '../../rpc/errors.js';
import type { RateDecision, RateLimiter } from '../policy/tokenBucket.js';
import type { TierLimit, TierPolicy } from '../policy/tiers.js';
import type { CostTable } from '../policy/computeUnits.js';
import type { UsageRecorder } from '../usage/usageRecorder.js';
import type { GatewayMetrics } from '../ops/gatewayMetrics.js';
import type { AdmittedItem } from './admission.js';

/** Usage row of the compute units charged for body size (README: "Tiers"). */
export const BODY_USAGE_METHOD = 'request_body';

export interface QuotaDeps {
  tiers: TierPolicy;
  costs: CostTable;
  limiter: RateLimiter;
  usage: UsageRecorder;
  metrics: GatewayMetrics;
}

type Refusal = RpcError | undefined | Promise<RpcError | undefined>;

/**
 * The compute units of one request, from its body to its last call. A class rather than closures:
 * one is made per request on the hot path.
 */
export class Bill {
  readonly #limit: TierLimit | null;
  #bodyCu = 0;
  #billedCu = 0;
  #refundCu = 0;

  constructor(
    private readonly deps: QuotaDeps,
    private readonly key: ApiKeyRecord,
  ) {
    this.#limit = deps.tiers.limit(key.tier);
  }

  /**
   * Charges the body's size before it is scanned: undefined when admitted, else the 429 error
   * (without Retry-After when the body alone could never fit the bucket).
   */
  chargeBody(bytes: number): Refusal {
    return this.#chargeBody(this.deps.costs.bodyCost(bytes), `A request body of ${bytes} bytes`);
  }

  /** Charges the body's JSON values (from the scan) before it is parsed; like chargeBody. */
  chargeValues(values: number): Refusal {
    return this.#chargeBody(this.deps.costs.valuesCost(values), `A request body of ${values} JSON values`);
  }

  /**
   * Takes the calls' units for the whole request at once: undefined when admitted, else the 429
   * error. Synchronous unless the limiter is (e.g. one shared over the network).
   */
  chargeCalls(items: readonly AdmittedItem[], batch: boolean): Refusal {
    let total = 0;
    for (const item of items) if (item.kind === 'run') total += item.cost;
    const limit = this.#limit;
    if (!limit || total === 0) return undefined;
    const bodyCu = this.#bodyCu;
    if (total + bodyCu > limit.burstCu) {
      const what = batch ? `A batch of ${items.length} calls` : 'This request';
      return this.#overLimit(limit, what, total + bodyCu, bodyCu ? ` (${total} for its calls, ${bodyCu} for its body)` : '');
    }
    // A retry pays for its body again before its calls: its Retry-After covers both.
    return this.#take(limit, total, Math.ceil(bodyCu / limit.cuPerSecond), undefined);
  }

  /**
   * Records a finished call, or gives its units back when it was refused before any work (a
   * LimitExceededError created with `beforeWork`: a full trace queue, a range over its cap).
   */
  settle(cost: number, metricMethod: string, refusedBeforeWork: boolean): void {
    if (refusedBeforeWork) this.#refundCu += cost;
    else {
      this.#billedCu += cost;
      this.deps.usage.record(this.key.id, metricMethod, cost);
    }
  }

  /** Once every call settled: metrics and the refund. */
  close(): void {
    if (this.#billedCu > 0) this.deps.metrics.computeUnits(this.key.tier, this.#billedCu);
    if (this.#refundCu > 0 && this.#limit) void this.deps.limiter.refund(this.key.id, this.#refundCu, this.#limit);
  }

  #chargeBody(cost: number, what: string): Refusal {
    if (cost === 0) return undefined;
    const before = this.#bodyCu;
    const charged = () => {
      this.#bodyCu += cost;
      this.#billedCu += cost;
      // A charge, not a call: the day's request count stays that of the calls.
      this.deps.usage.record(this.key.id, BODY_USAGE_METHOD, cost, 0);
    };
    const limit = this.#limit;
    if (!limit) return void charged();
    if (before + cost > limit.burstCu) return this.#overLimit(limit, what, before + cost, before ? ` (${cost} for them, ${before} for its size)` : '');
    // A retry pays for what was charged before again: its Retry-After covers both.
    return this.#take(limit, cost, Math.ceil(before / limit.cuPerSecond), charged);
  }

  #overLimit(limit: TierLimit, what: string, costCu: number, detail: string): CostOverLimitError {
    return new CostOverLimitError(
      `${what} costs ${costCu} compute units${detail}, more than the ${this.key.tier} tier's limit of ${limit.burstCu} compute units at once (${limit.cuPerSecond} per second): send smaller requests`,
      { costCu, burstCu: limit.burstCu, cuPerSecond: limit.cuPerSecond },
    );
  }

  #take(limit: TierLimit, cost: number, extraWaitSec: number, onTaken: (() => void) | undefined): Refusal {
    const decide = (decision: RateDecision): RpcError | undefined => {
      if (decision.ok) return void onTaken?.();
      this.deps.metrics.rateLimited(this.key.tier);
      return new RateLimitedError(decision.retryAfterSec + extraWaitSec);
    };
    const decision = this.deps.limiter.take(this.key.id, cost, limit, this.key.tier);
    return decision instanceof Promise ? decision.then(decide) : decide(decision);
  }
}
