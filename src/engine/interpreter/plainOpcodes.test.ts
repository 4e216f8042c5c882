// The plain opcodes' tables against ethereumjs's opcode list: same static fee, no dynamic gas.
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { getOpcodesForHF, paramsEVM } from '@ethereumjs/evm';
import { describe, expect, it } from 'vitest';
import { PLAIN, PLAIN_FEE, STACK_IN, STACK_ROOM } from './plainOpcodes.js';

describe('plainOpcodes', () => {
  for (const hardfork of [Hardfork.Cancun, Hardfork.Prague]) {
    it(`behavior: every plain opcode has ethereumjs's static fee and no dynamic gas (${hardfork})`, () => {
      const { opcodes } = getOpcodesForHF(new Common({ chain: Mainnet, hardfork, params: paramsEVM }));
      let plain = 0;
      for (let op = 0; op < 256; op++) {
        if (PLAIN_FEE[op] === 0) continue;
        plain++;
        const info = opcodes.get(op);
        expect(info, op.toString(16)).toBeDefined();
        expect({ op, fee: info!.fee, dynamic: info!.dynamicGas }).toEqual({ op, fee: PLAIN_FEE[op], dynamic: false });
      }
      expect(plain).toBe(116);
    });
  }

  it('behavior: stack words taken and the height that overflows', () => {
    const row = (op: number) => [PLAIN_FEE[op], STACK_IN[op], STACK_ROOM[op]];
    expect(row(0x01)).toEqual([3, 2, 1024]); // ADD
    expect(row(0x08)).toEqual([8, 3, 1024]); // ADDMOD
    expect(row(0x15)).toEqual([3, 1, 1024]); // ISZERO
    expect(row(0x5f)).toEqual([2, 0, 1023]); // PUSH0
    expect(row(0x60)).toEqual([3, 0, 1023]); // PUSH1
    expect(row(0x7f)).toEqual([3, 0, 1023]); // PUSH32
    expect(row(0x80)).toEqual([3, 1, 1023]); // DUP1
    expect(row(0x8f)).toEqual([3, 16, 1023]); // DUP16
    expect(row(0x90)).toEqual([3, 2, 1024]); // SWAP1
    expect(row(0x9f)).toEqual([3, 17, 1024]); // SWAP16
    expect(row(0x57)).toEqual([10, 2, 1024]); // JUMPI
    expect(row(0x5b)).toEqual([1, 0, 1024]); // JUMPDEST
  });

  it('behavior: the packed table holds the three (0 for an opcode that is not plain)', () => {
    for (let op = 0; op < 256; op++) {
      const packed = PLAIN[op]!;
      if (PLAIN_FEE[op] === 0) expect(packed, op.toString(16)).toBe(0);
      else expect([packed & 0xff, (packed >> 8) & 0xff, packed >> 16], op.toString(16)).toEqual([PLAIN_FEE[op], STACK_IN[op], STACK_ROOM[op]]);
    }
  });

  it('behavior: opcodes that check anything else first are not plain', () => {
    // STOP, EXP (dynamic), KECCAK256, BALANCE, MLOAD, MSTORE, SLOAD, SSTORE, TSTORE (static check), MCOPY, LOG0, CALL, INVALID
    for (const op of [0x00, 0x0a, 0x20, 0x31, 0x51, 0x52, 0x54, 0x55, 0x5d, 0x5e, 0xa0, 0xf1, 0xfe]) expect(PLAIN_FEE[op], op.toString(16)).toBe(0);
  });
});
