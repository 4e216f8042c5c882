// Upstream error wording back to the record's FrameError: geth's VM texts (callTracer), anvil's
// revm halt names (its callTracer and trace_*), and OpenEthereum's fixed set (Parity trace_*).
// Says for each whether geth's and OpenEthereum's wording can be rendered again exactly; the
// mapping the other way is src/engine/render/errorText.ts.
import type { FrameError, FrameErrorKind } from '../../engine/record/types.js';

export interface ParsedFrameError {
  error: FrameError;
  /** geth's text of `error` (gethErrorText) is the text the executing node would have printed. */
  gethExact: boolean;
  /** OpenEthereum's text of `error` (parityErrorText) is. */
  parityExact: boolean;
}

const exact = (kind: FrameErrorKind, message: string, opcode?: number): ParsedFrameError => ({
  error: opcode === undefined ? { kind, message } : { kind, message, opcode },
  gethExact: true,
  parityExact: true,
});
/** The kind is right for OpenEthereum's coarse set but too coarse for geth's wording. */
const parityOnly = (kind: FrameErrorKind, message: string): ParsedFrameError => ({ error: { kind, message }, gethExact: false, parityExact: true });

const GETH_TEXTS: Record<string, FrameErrorKind> = {
  'execution reverted': 'revert',
  'out of gas': 'outOfGas',
  'contract creation code storage out of gas': 'codeStoreOutOfGas',
  'max code size exceeded': 'maxCodeSizeExceeded',
  'out of gas: not enough gas for reentrancy sentry': 'reentrancySentry',
  'invalid jump destination': 'invalidJump',
  'stack limit reached 1024 (1023)': 'stackOverflow',
  'write protection': 'writeProtection',
  'return data out of bounds': 'returnDataOutOfBounds',
  'insufficient balance for transfer': 'insufficientBalance',
  'max call depth exceeded': 'callDepthExceeded',
  'contract address collision': 'createCollision',
  'nonce uint64 overflow': 'nonceOverflow',
  'max initcode size exceeded': 'initCodeSizeExceeded',
  'invalid code: must not begin with 0xef': 'invalidCodePrefix',
};

/** anvil 1.7.1 prints revm's halt names for these (docs/trace-conventions.md, "Differences from anvil"). */
const REVM_NAMES: Record<string, FrameErrorKind> = {
  OutOfOffset: 'returnDataOutOfBounds',
  CreateContractSizeLimit: 'maxCodeSizeExceeded',
  CreateCollision: 'createCollision',
  StackUnderflow: 'stackUnderflow',
  StateChangeDuringStaticCall: 'writeProtection',
  CallNotAllowedInsideStatic: 'writeProtection',
  CreateContractStartingWithEF: 'invalidCodePrefix',
  'out of gas: out of memory': 'outOfGas',
};

/** Precompile failures geth reports with the precompile's own words. */
const PRECOMPILE_TEXTS = new Set(['invalid input length', 'bad elliptic curve pairing size', 'bn256: malformed point']);

/** A geth-family error text (geth's callTracer/flatCallTracer, or anvil's). */
export function frameErrorFromGethText(text: string): ParsedFrameError | undefined {
  const kind = GETH_TEXTS[text];
  if (kind) return exact(kind, text);
  if (text.startsWith('stack underflow')) return exact('stackUnderflow', text);
  const opcode = /^invalid opcode: opcode 0x([0-9a-f]{1,2}) not defined$/.exec(text);
  if (opcode) return exact('invalidOpcode', text, parseInt(opcode[1]!, 16));
  if (text === 'invalid opcode: INVALID') return exact('invalidOpcode', text, 0xfe);
  // Kept as the ethereumjs messages render/errorText.ts maps back to these geth texts.
  if (PRECOMPILE_TEXTS.has(text)) return exact('precompileFailed', text === 'invalid input length' ? 'value out of range' : text === 'bn256: malformed point' ? 'revert' : text);
  const revm = REVM_NAMES[text];
  if (revm) return parityOnly(revm, text);
  // anvil: `invalid opcode` without the byte, `precompiled failed` without the precompile's reason.
  if (text === 'invalid opcode') return parityOnly('invalidOpcode', text);
  if (text === 'precompiled failed') return parityOnly('precompileFailed', text);
  return undefined;
}

const PARITY_TEXTS: Record<string, FrameErrorKind> = {
  Reverted: 'revert',
  'Bad jump destination': 'invalidJump',
  'Out of stack': 'stackOverflow',
  'Mutable Call In Static Context': 'writeProtection',
  'Out of bounds': 'returnDataOutOfBounds',
  'Insufficient balance for transfer': 'insufficientBalance',
};

/**
 * A Parity-family error text (OpenEthereum's set, or anvil's trace_* with revm names). `Out of gas`,
 * `Bad instruction`, `Stack underflow` and `Built-in failed` name a class of halts that geth words
 * differently per case, so geth's text cannot be rendered from them.
 */
export function frameErrorFromParityText(text: string): ParsedFrameError | undefined {
  const kind = PARITY_TEXTS[text];
  if (kind) return exact(kind, text);
  switch (text) {
    case 'Out of gas':
      // geth: `out of gas`, the re-entrancy sentry, and for creates the code deposit or size limits.
      return parityOnly('outOfGas', text);
    case 'Bad instruction':
      return parityOnly('invalidOpcode', text);
    case 'Stack underflow':
      return parityOnly('stackUnderflow', text);
    case 'Built-in failed':
      return parityOnly('precompileFailed', text);
  }
  const revm = REVM_NAMES[text];
  if (revm) return parityOnly(revm, text);
  return undefined;
}
