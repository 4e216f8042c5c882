// The cost ethereumjs's step event shows for an opcode that halts exceptionally, which the
// interpreter (charging gas inline) works out from what it charged and the charge that did not fit.
import type { StepHooks } from './message.js';
import { Unsupported } from './worldState.js';

const CALL_FAMILY = new Set([0xf1, 0xf2, 0xf4, 0xfa]);

/**
 * The cost ethereumjs's step reports for an opcode that halts exceptionally, from what the
 * interpreter charged for it and the charge that did not fit. ethereumjs reports the whole cost when
 * its gas handler returned one (the charge then fails, or the opcode itself fails after the charge),
 * and the static fee alone when the gas handler threw: a stack underflow it peeked, the EIP-2200
 * sentry, a CALL-family opcode that cannot pay its own cost. The interpreter checks in ethereumjs's
 * order, so nothing charged and no failed charge means the gas handler's peek or check failed.
 */
export function haltingStepCost(hooks: StepHooks, op: number, charged: number, failedUse: number): number {
  if (failedUse > 0 && CALL_FAMILY.has(op)) return hooks.fees[op] ?? 0;
  if (failedUse > 0) {
    // ethereumjs prices memory exactly (a BigInt the step shows); the interpreter stops at Infinity
    // past 4 GiB, and its doubles may round the quadratic term from 2^26.5 words on (a cost of 2^44).
    if (failedUse >= 2 ** 43) throw new Unsupported('an opcode past 2^43 gas of memory while steps are recorded');
    return charged + failedUse;
  }
  return charged > 0 ? charged : (hooks.fees[op] ?? 0);
}
