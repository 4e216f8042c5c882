import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeErrorResult, parseAbi } from 'viem';
import { hexToBytes } from '../../rpc/hex.js';
import { decodeRevertReason } from './revertReason.js';

const abi = parseAbi(['error Error(string)', 'error Panic(uint256)', 'error Refused(address who, uint256 code)']);

describe('decodeRevertReason', () => {
  it('default: Error(string) gives its message', () => {
    const data = encodeErrorResult({ abi, errorName: 'Error', args: ['TraceProbe: refused'] });
    expect(decodeRevertReason(hexToBytes(data))).toBe('TraceProbe: refused');
  });

  it('behavior: Panic(uint256) gives solidity\'s description, unknown codes their number', () => {
    expect(decodeRevertReason(hexToBytes(encodeErrorResult({ abi, errorName: 'Panic', args: [0x12n] })))).toBe('division or modulo by zero');
    expect(decodeRevertReason(hexToBytes(encodeErrorResult({ abi, errorName: 'Panic', args: [0x11n] })))).toBe('arithmetic underflow or overflow');
    expect(decodeRevertReason(hexToBytes(encodeErrorResult({ abi, errorName: 'Panic', args: [0x99n] })))).toBe('unknown panic code: 0x99');
  });

  it('behavior: a message that is not UTF-8 keeps its length, each bad byte U+FFFD (as anvil answers)', () => {
    const data = `0x08c379a0${encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [32n, 2n]).slice(2)}fffe${'00'.repeat(30)}`;
    expect(decodeRevertReason(hexToBytes(data as `0x${string}`))).toBe('\ufffd\ufffd');
  });

  it('behavior: custom errors, short or malformed data give no reason', () => {
    const custom = encodeErrorResult({ abi, errorName: 'Refused', args: ['0x00000000000000000000000000000000000000aa', 42n] });
    expect(decodeRevertReason(hexToBytes(custom))).toBeUndefined();
    expect(decodeRevertReason(hexToBytes('0x08c379a0'))).toBeUndefined();
    expect(decodeRevertReason(new Uint8Array(0))).toBeUndefined();
    const lying = `0x08c379a0${encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [32n, 1000n]).slice(2)}`;
    expect(decodeRevertReason(hexToBytes(lying))).toBeUndefined();
  });
});
