// The time source of everything time-dependent in the gateway (quotas, caches, usage days), so
// tests can drive time instead of waiting.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told; for tests. */
export function createManualClock(startMs = 1_700_000_000_000): Clock & { advance(ms: number): void; set(ms: number): void } {
  let t = startMs;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
    set(ms: number) {
      t = ms;
    },
  };
}
