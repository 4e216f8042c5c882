// The notify pipeline's clock in a process that owns its store (SQLite): wall time read once, then
// advanced by the monotonic clock, so a step of the system clock moves no retry, deadline or lease
// by itself. The step is noticed (`wallStepMs`) and followed on purpose: the delivery worker moves
// the stored due times by the step and then this clock (`shift`), so durations stay as scheduled and
// stored times stay on the wall clock (deliver/wallStepFollower.ts).
import type { Clock } from './clock.js';

/** A clock that notices steps of the wall clock and follows them only when told. */
export interface SteppableClock extends Clock {
  /** Wall time minus this clock's time when further apart than the tolerance, else 0. */
  wallStepMs(): number;
  /** Moves this clock by `ms` (done after the stored times it compares with were moved as much). */
  shift(ms: number): void;
}

export interface SteadyClockOptions {
  /** Default Date.now. */
  wallNow?: () => number;
  /** Milliseconds from any fixed origin, never stepped; default performance.now (CLOCK_MONOTONIC). */
  monotonicNow?: () => number;
  /**
   * Differences up to this are not steps. CLOCK_MONOTONIC is slewed by NTP as the wall clock is,
   * so the two drift apart only when the wall clock is stepped. Default 1 000.
   */
  stepToleranceMs?: number;
}

export function createSteadyClock(options: SteadyClockOptions = {}): SteppableClock {
  const wallNow = options.wallNow ?? Date.now;
  const monotonicNow = options.monotonicNow ?? (() => performance.now());
  const toleranceMs = options.stepToleranceMs ?? 1_000;
  let offsetMs = wallNow() - monotonicNow();
  const now = () => Math.floor(monotonicNow() + offsetMs);
  return {
    now,
    wallStepMs() {
      const before = now();
      const wall = wallNow();
      const after = now();
      // Descheduled between the reads (a busy machine): no verdict; the next look decides.
      if (after - before > 50) return 0;
      const step = Math.round(wall - (before + after) / 2);
      return Math.abs(step) > toleranceMs ? step : 0;
    },
    shift(ms) {
      offsetMs += ms;
    },
  };
}

export function isSteppableClock(clock: Clock): clock is SteppableClock {
  return typeof (clock as Partial<SteppableClock>).wallStepMs === 'function' && typeof (clock as Partial<SteppableClock>).shift === 'function';
}
