// A job's step budget as seen by a recording that may run more than once: the interpreter restarts
// a run after loading state it missed (fastCall.ts), and each run repeats the frames of the one
// before it up to the miss. Only what a run charges beyond the furthest earlier run reaches the
// job's budget, so a restarted recording is charged once, as the ethereumjs recorder is.
import type { StepBudget, StepCapPassed } from '../record/types.js';

export interface ReplayBudget extends StepBudget {
  /** A new run starts from the beginning. */
  restart(): void;
}

export function createReplayBudget(budget: StepBudget): ReplayBudget {
  let steps = 0;
  let bytes = 0;
  let chargedSteps = 0;
  let chargedBytes = 0;
  return {
    maxSteps: budget.maxSteps,
    maxBytes: budget.maxBytes,
    charge(n, b): StepCapPassed | undefined {
      steps += n;
      bytes += b;
      const newSteps = Math.max(0, steps - chargedSteps);
      const newBytes = Math.max(0, bytes - chargedBytes);
      chargedSteps = Math.max(chargedSteps, steps);
      chargedBytes = Math.max(chargedBytes, bytes);
      return budget.charge(newSteps, newBytes);
    },
    restart() {
      steps = 0;
      bytes = 0;
    },
  };
}
