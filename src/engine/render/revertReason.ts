// Decodes revert data the way geth's abi.UnpackRevert does: `Error(string)` gives its message,
// `Panic(uint256)` gives solidity's description of the panic code. The one decoder: callTracer's
// `revertReason` and eth_call's "execution reverted: <reason>" both use it. Bytes that are not
// UTF-8 become U+FFFD, as anvil answers both (measured) and geth's JSON encoding does.
import { bytesToBigInt } from '@ethereumjs/util';

const ERROR_SELECTOR = '08c379a0';
const PANIC_SELECTOR = '4e487b71';

const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
]);

function selectorOf(data: Uint8Array): string {
  return Array.from(data.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The human-readable reason in revert data, or undefined when it is neither Error nor Panic. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = selectorOf(data);
  const body = data.subarray(4);
  if (selector === PANIC_SELECTOR) {
    if (body.length < 32) return undefined;
    const code = bytesToBigInt(body.subarray(0, 32));
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  if (selector !== ERROR_SELECTOR || body.length < 64) return undefined;
  const offset = bytesToBigInt(body.subarray(0, 32));
  if (offset + 32n > BigInt(body.length)) return undefined;
  const start = Number(offset);
  const length = bytesToBigInt(body.subarray(start, start + 32));
  if (BigInt(start + 32) + length > BigInt(body.length)) return undefined;
  return new TextDecoder().decode(body.subarray(start + 32, start + 32 + Number(length)));
}
