// geth's wording for the halts of eth_call and eth_estimateGas, from the one map of halts to geth's
// texts that the tracers use (render/errorText.ts, through record/frameError.ts's classification);
// the revert reason comes from render/revertReason.ts, the one decoder.
import { classifyHalt, type HaltContext } from '../record/frameError.js';
import { gethErrorText } from '../render/errorText.js';

/** A call's outcome says only what halted it: no opcode, stack or frame kind. */
const OUTCOME_ONLY: HaltContext = { opCode: undefined, stack: undefined, returnDataLength: undefined, returned: false, isCreate: false, precompile: false, sentry: false };

/**
 * geth's wording for an EVM halt reported by ethereumjs or the interpreter (other than a revert of
 * code). `precompile`: the call went straight to a precompile, whose failure is its own error (and
 * which cannot revert: ethereumjs reports a bad BN254 point as "revert", geth "bn256: malformed point").
 */
export function evmErrorToGethText(error: string, precompile = false): string {
  const halt = classifyHalt({ error }, precompile ? { ...OUTCOME_ONLY, precompile } : OUTCOME_ONLY)!;
  // geth names the opcode ("invalid opcode: INVALID", "invalid opcode: opcode 0xc not defined"),
  // which an outcome does not carry; a halt the map does not know keeps its own text.
  if (halt.kind === 'invalidOpcode' || halt.kind === 'other') return error;
  return gethErrorText(halt);
}
