// The server-side caps on a step-level trace (struct logs, vmTrace): how many steps one job may
// record and how many bytes of output they may render to, counted while the steps are recorded so
// a trace past a cap stops at once (an error, never a partial trace) instead of growing in memory.
import { LimitExceededError } from '../../rpc/errors.js';
import type { StepBudget, StepCapPassed } from './types.js';

export interface StepCaps {
  /** Most output bytes one job's steps may render to (the struct log or vmTrace JSON). */
  maxBytes: number;
  /** Most steps one job may record. */
  maxSteps: number;
}

/** The service's defaults (--trace-max-bytes, --trace-max-steps). */
export const DEFAULT_STEP_CAPS: StepCaps = { maxBytes: 64 * 1024 * 1024, maxSteps: 1_000_000 };

/** A budget for one job (every transaction or call it records). */
export function createStepBudget(caps: StepCaps): StepBudget {
  let steps = 0;
  let bytes = 0;
  let passed: StepCapPassed | undefined;
  return {
    maxSteps: caps.maxSteps,
    maxBytes: caps.maxBytes,
    charge(n, b) {
      if (passed) return passed;
      steps += n;
      bytes += b;
      if (steps > caps.maxSteps) passed = 'steps';
      else if (bytes > caps.maxBytes) passed = 'bytes';
      return passed;
    },
  };
}

/**
 * The refusal of a trace past a cap (-32005), naming the option that set it and, in `advice`, how
 * to ask for less. It replaces the whole answer: a trace is never cut short silently.
 */
export function stepCapError(caps: StepCaps, passed: StepCapPassed, advice: Record<StepCapPassed, string>): LimitExceededError {
  const message =
    passed === 'steps' ? `trace exceeds --trace-max-steps (${caps.maxSteps} steps)` : `trace output exceeds --trace-max-bytes (${caps.maxBytes} bytes)`;
  return new LimitExceededError(message, { details: advice[passed] });
}
