// The least gas a frame needs to take the path one run took (eth_estimateGas's first guess, see
// InterpreterOptions.trackGasNeed): every charge paid, SSTORE's stipend check passed, and each
// child given what it needs under EIP-150's rule that a CALL or CREATE passes on all but one 64th.
import { Errors, type MessageResult } from './message.js';

/**
 * The least gas a frame must hold, after a CALL's or CREATE's own cost, for the child to get at
 * least `x`: all but one 64th of it is passed on (EIP-150).
 */
export function gasBeforeChild(x: number): number {
  if (x <= 0) return 0;
  let a = x + Math.floor(x / 63);
  while (a - Math.floor(a / 64) < x) a++;
  while (a > 0 && a - 1 - Math.floor((a - 1) / 64) >= x) a--;
  return a;
}

/**
 * What a frame that started with `frameGas` and held `gasAfterCost` after a CALL's or CREATE's own
 * cost must start with for the child `result` (given `stipend` on top of what was passed on) to run
 * as it did; undefined when the child halted exceptionally (it took all it was given, so what it
 * was given changes what the frame spends).
 */
export function gasNeedAround(frameGas: number, gasAfterCost: number, result: MessageResult, stipend: number): number | undefined {
  if (result.error !== undefined && result.error !== Errors.REVERT) return undefined;
  return frameGas - gasAfterCost + gasBeforeChild((result.gasNeed ?? 0) - stipend);
}
