// One upstream's health score: latency and error rate as moving averages, and a short, graduated
// cool-down after failures (doubling per failure in a row, capped, never permanent: once it ends
// the upstream gets traffic again and one success clears the streak). Head lag is judged by the
// pool (it knows the network's head); choosing upstreams from these numbers is routedBackend.ts's.

export interface UpstreamHealthOptions {
  now?: () => number;
  /** Cool-down after the first failure in a row; doubles with each further one. Default 500 ms. */
  baseCooldownMs?: number;
  /** Longest cool-down. Default 30,000 ms. */
  maxCooldownMs?: number;
}

export interface HealthSnapshot {
  latencyMs: number;
  errorRate: number;
  failuresInRow: number;
  /** Epoch ms until which the upstream cools down, or 0. */
  coolingUntilMs: number;
  lastError?: string;
  requests: number;
  failures: number;
}

export interface UpstreamHealth {
  recordSuccess(latencyMs: number): void;
  /**
   * A failure that blames the upstream: `connection` (unreachable, reset, timeout) or `answer` (a
   * bad answer, its internal error).
   */
  recordFailure(reason: string, kind?: 'connection' | 'answer'): void;
  /**
   * The upstream answered a head poll: a cool-down that came only from connection failures ends
   * (it is back); one from bad answers runs its course.
   */
  recordAlive(): void;
  /** Takes the upstream out for `ms` (e.g. it answered from another fork), counted as a failure. */
  penalize(ms: number, reason: string): void;
  isCooling(): boolean;
  /** Relative preference from latency and errors, in (0, 1]. */
  preference(): number;
  snapshot(): HealthSnapshot;
}

/** Weight of a new sample in the moving averages. */
const ALPHA = 0.2;

export function createUpstreamHealth(options: UpstreamHealthOptions = {}): UpstreamHealth {
  const now = options.now ?? Date.now;
  const baseMs = options.baseCooldownMs ?? 500;
  const maxMs = options.maxCooldownMs ?? 30_000;
  let latencyMs = 0;
  let errorRate = 0;
  let failuresInRow = 0;
  let coolingUntilMs = 0;
  let lastError: string | undefined;
  let requests = 0;
  let failures = 0;
  let streakOfConnectionFailures = false;

  const cool = (ms: number) => {
    coolingUntilMs = Math.max(coolingUntilMs, now() + ms);
  };

  return {
    recordSuccess(ms) {
      requests++;
      latencyMs = latencyMs === 0 ? ms : latencyMs + ALPHA * (ms - latencyMs);
      errorRate += ALPHA * (0 - errorRate);
      failuresInRow = 0;
      coolingUntilMs = 0;
    },
    recordFailure(reason, kind = 'answer') {
      requests++;
      failures++;
      streakOfConnectionFailures = (failuresInRow === 0 || streakOfConnectionFailures) && kind === 'connection';
      failuresInRow++;
      errorRate += ALPHA * (1 - errorRate);
      lastError = reason;
      cool(Math.min(maxMs, baseMs * 2 ** Math.min(failuresInRow - 1, 20)));
    },
    recordAlive() {
      if (failuresInRow > 0 && streakOfConnectionFailures) {
        failuresInRow = 0;
        coolingUntilMs = 0;
      }
    },
    penalize(ms, reason) {
      failures++;
      streakOfConnectionFailures = false;
      lastError = reason;
      errorRate += ALPHA * (1 - errorRate);
      cool(Math.min(maxMs, ms));
    },
    isCooling: () => coolingUntilMs > now(),
    preference() {
      // 100 ms of average latency halves the preference; a recent error streak weighs more.
      const latency = 1 / (1 + latencyMs / 100);
      return Math.max(0.01, latency * (1 - errorRate) ** 2);
    },
    snapshot: () => ({ latencyMs: Math.round(latencyMs * 10) / 10, errorRate: Math.round(errorRate * 1000) / 1000, failuresInRow, coolingUntilMs: coolingUntilMs > now() ? coolingUntilMs : 0, lastError, requests, failures }),
  };
}
