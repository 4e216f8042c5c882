// Client wording for frame errors: geth's VM error texts (callTracer, flatCallTracer, struct logs)
// and OpenEthereum's fixed set (Parity `trace_*`). The mapping is documented in
// docs/trace-conventions.md.
import { opcodeName } from '../record/opcodeInfo.js';
import type { FrameError } from '../record/types.js';

/** geth's text for a frame error (eth/tracers/native/call.go fixtures show these). */
export function gethErrorText(error: FrameError): string {
  switch (error.kind) {
    case 'revert':
      return 'execution reverted';
    case 'outOfGas':
      return 'out of gas';
    case 'codeStoreOutOfGas':
      return 'contract creation code storage out of gas';
    case 'maxCodeSizeExceeded':
      return 'max code size exceeded';
    case 'reentrancySentry':
      return 'out of gas: not enough gas for reentrancy sentry';
    case 'invalidJump':
      return 'invalid jump destination';
    case 'invalidOpcode':
      return `invalid opcode: ${opcodeName(error.opcode ?? 0xfe)}`;
    case 'stackUnderflow':
      return error.message.startsWith('stack underflow (') ? error.message : 'stack underflow';
    case 'stackOverflow':
      return 'stack limit reached 1024 (1023)';
    case 'writeProtection':
      return 'write protection';
    case 'returnDataOutOfBounds':
      return 'return data out of bounds';
    case 'insufficientBalance':
      return 'insufficient balance for transfer';
    case 'callDepthExceeded':
      return 'max call depth exceeded';
    case 'createCollision':
      return 'contract address collision';
    case 'nonceOverflow':
      return 'nonce uint64 overflow';
    case 'initCodeSizeExceeded':
      return 'max initcode size exceeded';
    case 'invalidCodePrefix':
      return 'invalid code: must not begin with 0xef';
    case 'precompileFailed':
      // ethereumjs reports a bad blake2f input as "value out of range", and a bad bn254 point as
      // "revert"; geth says these (the latter from its bn256 library, for a point off the curve).
      if (error.message === 'value out of range') return 'invalid input length';
      return error.message === 'revert' ? 'bn256: malformed point' : error.message;
    case 'other':
      return error.message;
  }
}

/**
 * OpenEthereum's text (crates/ethcore/src/trace/types/error.rs), or undefined for conditions
 * OpenEthereum does not trace at all (calls that fail their pre-checks).
 */
export function parityErrorText(error: FrameError): string | undefined {
  switch (error.kind) {
    case 'revert':
      return 'Reverted';
    case 'outOfGas':
    case 'codeStoreOutOfGas':
    case 'maxCodeSizeExceeded':
    case 'reentrancySentry':
    case 'createCollision':
    case 'initCodeSizeExceeded':
    case 'nonceOverflow':
      return 'Out of gas';
    case 'invalidJump':
      return 'Bad jump destination';
    case 'invalidOpcode':
    case 'invalidCodePrefix':
      return 'Bad instruction';
    case 'stackUnderflow':
      return 'Stack underflow';
    case 'stackOverflow':
      return 'Out of stack';
    case 'writeProtection':
      return 'Mutable Call In Static Context';
    case 'returnDataOutOfBounds':
      return 'Out of bounds';
    case 'precompileFailed':
      return 'Built-in failed';
    case 'insufficientBalance':
    case 'callDepthExceeded':
      return undefined;
    case 'other':
      return 'Internal error';
  }
}
