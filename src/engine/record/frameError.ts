// Classifies an ethereumjs exceptional halt into a client-neutral FrameError. ethereumjs folds
// several distinct geth conditions into one message (code-deposit OOG, the EIP-2200 sentry and
// RETURNDATACOPY out of bounds all come out as "out of gas"); the frame's last run state tells
// them apart. A failing precompile is always `precompileFailed`, whatever ethereumjs calls it.
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
  /**
   * A create returned code starting with 0xEF where EIP-3541 refuses it. geth checks that prefix
   * before the deposit's gas, ethereumjs after, so a deposit it cannot pay is geth's invalid code.
   */
  refusedPrefix?: boolean;
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
  // A precompile cannot REVERT: ethereumjs's bn254 precompiles report a bad point as "revert".
  if (ctx.precompile && kind !== 'outOfGas') kind = 'precompileFailed';
  if (kind === 'outOfGas' && !ctx.precompile) {
    if (ctx.isCreate && ctx.returned) kind = ctx.refusedPrefix ? 'invalidCodePrefix' : 'codeStoreOutOfGas';
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

/** BN254 pairing gas (EIP-197, repriced by EIP-1108): a base plus a price per 192-byte pair. */
export interface PairingGas {
  base: bigint;
  perPair: bigint;
}

const PAIRING_ADDRESS = 8;

/** The frame's callee is the BN254 pairing precompile (0x08). */
export function isPairingPrecompile(address: Uint8Array | undefined): boolean {
  return address !== undefined && address.length === 20 && address[19] === PAIRING_ADDRESS && address.subarray(0, 19).every((b) => b === 0);
}

/**
 * Re-classifies a failed BN254 pairing call as geth does. ethereumjs checks the input length
 * before the gas; geth charges the gas first (`out of gas` when it does not cover the pairs the
 * input holds), then refuses the length as `bad elliptic curve pairing size` (core/vm/contracts.go).
 */
export function pairingHalt(error: FrameError, gas: bigint, inputLength: number, cost: PairingGas): FrameError {
  if (error.kind !== 'precompileFailed' || error.message !== M.INVALID_INPUT_LENGTH) return error;
  if (gas < cost.base + BigInt(Math.floor(inputLength / 192)) * cost.perPair) return { kind: 'outOfGas', message: M.OUT_OF_GAS };
  return { kind: 'precompileFailed', message: 'bad elliptic curve pairing size' };
}

/** Failures that happen around the frame's code rather than at its last opcode (no step carries them). */
export const NO_FRAME_OUTPUT_KINDS: ReadonlySet<string> = new Set(['revert', 'codeStoreOutOfGas', 'maxCodeSizeExceeded', 'invalidCodePrefix', 'createCollision', 'initCodeSizeExceeded']);
