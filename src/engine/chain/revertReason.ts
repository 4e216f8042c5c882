// Decodes revert data into the human-readable reason geth appends to "execution reverted":
// Solidity's Error(string) and Panic(uint256) encodings.
import { bytesToBigInt } from '@ethereumjs/util';

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

// Solidity panic codes (see the Solidity docs, "Panic via assert and Error via require").
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic panic',
  0x01: 'assert(false)',
  0x11: 'arithmetic underflow or overflow',
  0x12: 'division or modulo by zero',
  0x21: 'enum overflow',
  0x22: 'invalid encoded storage byte array accessed',
  0x31: 'out-of-bounds array access; popping on an empty array',
  0x32: 'out-of-bounds access of an array or bytesN',
  0x41: 'out of memory',
  0x51: 'uninitialized function',
};

function selectorOf(data: Uint8Array): string {
  return Buffer.from(data.subarray(0, 4)).toString('hex');
}

/** The reason encoded in revert data, or undefined for custom errors and empty data. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = selectorOf(data);
  if (selector === ERROR_SELECTOR && data.length >= 68) {
    const offset = Number(bytesToBigInt(data.subarray(4, 36)));
    const lengthStart = 4 + offset;
    if (lengthStart + 32 > data.length) return undefined;
    const length = Number(bytesToBigInt(data.subarray(lengthStart, lengthStart + 32)));
    const start = lengthStart + 32;
    if (start + length > data.length) return undefined;
    return new TextDecoder().decode(data.subarray(start, start + length));
  }
  if (selector === PANIC_SELECTOR && data.length >= 36) {
    const code = bytesToBigInt(data.subarray(4, 36));
    return PANIC_REASONS[Number(code)] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/** geth's wording for an EVM halt reported by ethereumjs (other than revert). */
export function evmErrorToGethText(error: string): string {
  // ethereumjs appends where it happened: 'invalid JUMP at <code hash>/<address>:<pc>'.
  if (error === 'invalid JUMP' || error.startsWith('invalid JUMP at ')) return 'invalid jump destination';
  if (error === 'code store out of gas') return 'contract creation code storage out of gas';
  if (error === 'code size to deposit exceeds maximum code size') return 'max code size exceeded';
  if (error === 'static state change') return 'write protection';
  if (error === 'create collision') return 'contract address collision';
  if (error === 'insufficient balance') return 'insufficient balance for transfer';
  return error;
}
