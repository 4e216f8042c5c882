// Classifies an ethereumjs exceptional halt into a client-neutral FrameError. ethereumjs folds
// several distinct geth conditions into one message (code-deposit OOG, the EIP-2200 sentry and
// RETURNDATACOPY out of bounds all come out as "out of gas"); the frame's last run state tells
// them apart.
import { EVMError } from '@ethereumjs/evm';
import type { FrameError, FrameErrorKind } from './types.js';
import { OP, opcodeInputs } from './opcodeInfo.js';

const M = EVMError.errorMessages;

const BY_MESSAGE: Record<string, FrameErrorKind> = {
  [M.REVERT]: 'revert',
  [M.OUT_OF_GAS]: 'outOfGas',
  [M.CODESTORE_OUT_OF_GAS]: 'codeStoreOutOfGas',
  [M.CODESIZE_EXCEEDS_MAXIMUM]: 'maxCodeSizeExceeded',
  [M.STACK_UNDERFLOW]: 'stackUnderflow',
  [M.STACK_OVERFLOW]: 'stackOverflow',
  [M.INVALID_JUMP]: 'invalidJump',
  [M.INVALID_OPCODE]: 'invalidOpcode',
  [M.STATIC_STATE_CHANGE]: 'writeProtection',
  [M.CREATE_COLLISION]: 'createCollision',
  [M.INSUFFICIENT_BALANCE]: 'insufficientBalance',
  [M.INITCODE_SIZE_VIOLATION]: 'initCodeSizeExceeded',
  [M.INVALID_BYTECODE_RESULT]: 'invalidCodePrefix',
};

/** The parts of ethereumjs's final run state of a frame that classification looks at. */
export interface HaltContext {
  /** Last opcode the interpreter attempted. */
  opCode: number | undefined;
  /** Stack words, top last, when available. */
  stack: bigint[] | undefined;
  returnDataLength: number | undefined;
  /** The interpreter reached RETURN (its own return value is set). */
  returned: boolean;
  isCreate: boolean;
  precompile: boolean;
  /** The frame's last SSTORE met the EIP-2200 re-entrancy sentry. */
  sentry: boolean;
}

/** Maps an ethereumjs EVMError (or its message) into a FrameError. */
export function classifyHalt(error: { error: string } | undefined, ctx: HaltContext): FrameError | undefined {
  if (!error) return undefined;
  const message = error.error;
  let kind: FrameErrorKind = BY_MESSAGE[message] ?? (message.startsWith(M.INVALID_JUMP) ? 'invalidJump' : 'other');
  if (ctx.precompile && kind !== 'outOfGas' && kind !== 'revert') kind = 'precompileFailed';
  if (kind === 'outOfGas' && !ctx.precompile) {
    if (ctx.isCreate && ctx.returned) kind = 'codeStoreOutOfGas';
    else if (ctx.opCode === OP.SSTORE && ctx.sentry) kind = 'reentrancySentry';
    else if (ctx.opCode === OP.RETURNDATACOPY && ctx.stack && ctx.returnDataLength !== undefined) {
      const n = ctx.stack.length;
      if (n >= 3 && ctx.stack[n - 2]! + ctx.stack[n - 3]! > BigInt(ctx.returnDataLength)) kind = 'returnDataOutOfBounds';
    }
  }
  if (ctx.precompile && kind === 'outOfGas' && message !== M.OUT_OF_GAS) kind = 'precompileFailed';
  const out: FrameError = { kind, message };
  if (kind === 'invalidOpcode' && ctx.opCode !== undefined) out.opcode = ctx.opCode;
  if (kind === 'stackUnderflow' && ctx.opCode !== undefined) {
    out.message = `stack underflow (${ctx.stack?.length ?? 0} <=> ${opcodeInputs(ctx.opCode)})`;
  }
  return out;
}
