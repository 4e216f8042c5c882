// The time source of the notify pipeline. Injected everywhere so retries, leases and auto-pause can
// be tested with a manual clock.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and benchmarks. */
export interface ManualClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function createManualClock(startMs = 1_700_000_000_000): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    set: (ms) => (current = ms),
    advance: (ms) => (current += ms),
  };
}
