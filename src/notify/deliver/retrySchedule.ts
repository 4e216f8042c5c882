// When to try a failed delivery again: exponential back-off with jitter, never sooner than the
// listener's Retry-After, and never past the retry window (then the event is marked failed and
// stays replayable). Pure functions of their inputs; randomness is injected.
import type { NextState } from '../outbox/recordAttempt.js';

export interface RetryScheduleOptions {
  /** Delay before the first retry, before jitter. */
  baseDelayMs: number;
  /** Cap of the exponential delay, before jitter. */
  maxDelayMs: number;
  /** How long after its first attempt an event keeps being retried. */
  retryWindowMs: number;
}

export const DEFAULT_RETRY_SCHEDULE: Omit<RetryScheduleOptions, 'retryWindowMs'> = { baseDelayMs: 1_000, maxDelayMs: 120_000 };

/**
 * Delay before retry number `failures` (1 = after the first failure): the exponential step
 * base·2^(failures−1), capped, with "equal jitter" (between half and all of it) so many failing
 * events do not retry in lockstep.
 */
export function backoffDelayMs(failures: number, random: () => number, options: Pick<RetryScheduleOptions, 'baseDelayMs' | 'maxDelayMs'>): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(Math.max(failures - 1, 0), 40));
  return Math.round(step / 2 + random() * (step / 2));
}

/**
 * Milliseconds a `Retry-After` header asks to wait (delta-seconds or HTTP-date), or null when
 * absent or unparseable. https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
 */
export function parseRetryAfterMs(header: string | undefined, nowMs: number): number | null {
  if (header === undefined) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, date - nowMs);
}

export interface AttemptFacts {
  /** Success is exactly HTTP 200, as the hosted provider defines it. */
  statusCode: number | null;
  attemptedAt: number;
  /** Attempts recorded before this one. */
  attemptsBefore: number;
  /** Deadline set by an earlier failure or a replay; null on a first failure. */
  retryDeadlineAt: number | null;
  retryAfterMs: number | null;
}

/** The delivery's next state after an attempt. A final retry is placed at the deadline itself. */
export function nextDeliveryState(facts: AttemptFacts, random: () => number, options: RetryScheduleOptions): NextState {
  if (facts.statusCode === 200) return { status: 'succeeded', nextAttemptAt: facts.attemptedAt, retryDeadlineAt: facts.retryDeadlineAt };
  const deadline = facts.retryDeadlineAt ?? facts.attemptedAt + options.retryWindowMs;
  if (facts.attemptedAt >= deadline) return { status: 'failed', nextAttemptAt: facts.attemptedAt, retryDeadlineAt: deadline };
  const delay = Math.max(backoffDelayMs(facts.attemptsBefore + 1, random, options), facts.retryAfterMs ?? 0);
  return { status: 'pending', nextAttemptAt: Math.min(facts.attemptedAt + delay, deadline), retryDeadlineAt: deadline };
}
