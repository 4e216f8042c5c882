// Static facts about EVM opcodes that recorders and renderers need: the geth mnemonic and how many
// stack words each opcode takes and pushes. Gas and semantics stay in @ethereumjs/evm.

interface OpcodeFacts {
  name: string;
  /** Stack words read (popped or, for DUP/SWAP, inspected). */
  inputs: number;
  /** Stack words the opcode leaves on top that it wrote (DUP: 1 pushed; SWAP: the swapped words). */
  pushes: number;
}

const table: (OpcodeFacts | undefined)[] = new Array(256);

function def(code: number, name: string, inputs: number, pushes: number): void {
  table[code] = { name, inputs, pushes };
}

def(0x00, 'STOP', 0, 0);
def(0x01, 'ADD', 2, 1);
def(0x02, 'MUL', 2, 1);
def(0x03, 'SUB', 2, 1);
def(0x04, 'DIV', 2, 1);
def(0x05, 'SDIV', 2, 1);
def(0x06, 'MOD', 2, 1);
def(0x07, 'SMOD', 2, 1);
def(0x08, 'ADDMOD', 3, 1);
def(0x09, 'MULMOD', 3, 1);
def(0x0a, 'EXP', 2, 1);
def(0x0b, 'SIGNEXTEND', 2, 1);
def(0x10, 'LT', 2, 1);
def(0x11, 'GT', 2, 1);
def(0x12, 'SLT', 2, 1);
def(0x13, 'SGT', 2, 1);
def(0x14, 'EQ', 2, 1);
def(0x15, 'ISZERO', 1, 1);
def(0x16, 'AND', 2, 1);
def(0x17, 'OR', 2, 1);
def(0x18, 'XOR', 2, 1);
def(0x19, 'NOT', 1, 1);
def(0x1a, 'BYTE', 2, 1);
def(0x1b, 'SHL', 2, 1);
def(0x1c, 'SHR', 2, 1);
def(0x1d, 'SAR', 2, 1);
def(0x1e, 'CLZ', 1, 1);
def(0x20, 'KECCAK256', 2, 1);
def(0x30, 'ADDRESS', 0, 1);
def(0x31, 'BALANCE', 1, 1);
def(0x32, 'ORIGIN', 0, 1);
def(0x33, 'CALLER', 0, 1);
def(0x34, 'CALLVALUE', 0, 1);
def(0x35, 'CALLDATALOAD', 1, 1);
def(0x36, 'CALLDATASIZE', 0, 1);
def(0x37, 'CALLDATACOPY', 3, 0);
def(0x38, 'CODESIZE', 0, 1);
def(0x39, 'CODECOPY', 3, 0);
def(0x3a, 'GASPRICE', 0, 1);
def(0x3b, 'EXTCODESIZE', 1, 1);
def(0x3c, 'EXTCODECOPY', 4, 0);
def(0x3d, 'RETURNDATASIZE', 0, 1);
def(0x3e, 'RETURNDATACOPY', 3, 0);
def(0x3f, 'EXTCODEHASH', 1, 1);
def(0x40, 'BLOCKHASH', 1, 1);
def(0x41, 'COINBASE', 0, 1);
def(0x42, 'TIMESTAMP', 0, 1);
def(0x43, 'NUMBER', 0, 1);
def(0x44, 'DIFFICULTY', 0, 1);
def(0x45, 'GASLIMIT', 0, 1);
def(0x46, 'CHAINID', 0, 1);
def(0x47, 'SELFBALANCE', 0, 1);
def(0x48, 'BASEFEE', 0, 1);
def(0x49, 'BLOBHASH', 1, 1);
def(0x4a, 'BLOBBASEFEE', 0, 1);
def(0x50, 'POP', 1, 0);
def(0x51, 'MLOAD', 1, 1);
def(0x52, 'MSTORE', 2, 0);
def(0x53, 'MSTORE8', 2, 0);
def(0x54, 'SLOAD', 1, 1);
def(0x55, 'SSTORE', 2, 0);
def(0x56, 'JUMP', 1, 0);
def(0x57, 'JUMPI', 2, 0);
def(0x58, 'PC', 0, 1);
def(0x59, 'MSIZE', 0, 1);
def(0x5a, 'GAS', 0, 1);
def(0x5b, 'JUMPDEST', 0, 0);
def(0x5c, 'TLOAD', 1, 1);
def(0x5d, 'TSTORE', 2, 0);
def(0x5e, 'MCOPY', 3, 0);
def(0x5f, 'PUSH0', 0, 1);
for (let n = 1; n <= 32; n++) def(0x5f + n, `PUSH${n}`, 0, 1);
for (let n = 1; n <= 16; n++) def(0x7f + n, `DUP${n}`, n, n + 1);
for (let n = 1; n <= 16; n++) def(0x8f + n, `SWAP${n}`, n + 1, n + 1);
for (let n = 0; n <= 4; n++) def(0xa0 + n, `LOG${n}`, n + 2, 0);
def(0xf0, 'CREATE', 3, 1);
def(0xf1, 'CALL', 7, 1);
def(0xf2, 'CALLCODE', 7, 1);
def(0xf3, 'RETURN', 2, 0);
def(0xf4, 'DELEGATECALL', 6, 1);
def(0xf5, 'CREATE2', 4, 1);
def(0xfa, 'STATICCALL', 6, 1);
def(0xfd, 'REVERT', 2, 0);
def(0xfe, 'INVALID', 0, 0);
def(0xff, 'SELFDESTRUCT', 1, 0);

/** geth's mnemonic: `SLOAD`, `PUSH1`, or `opcode 0xd0 not defined` for unassigned bytes. */
export function opcodeName(op: number): string {
  return table[op]?.name ?? `opcode 0x${op.toString(16)} not defined`;
}

/** Stack words the opcode reads (0 for unknown opcodes). */
export function opcodeInputs(op: number): number {
  return table[op]?.inputs ?? 0;
}

/**
 * How many words on top of the stack after the opcode are its output, as OpenEthereum's vmTrace
 * `push` lists them (DUPn: n+1 words, SWAPn: n+1 words, others: their pushes).
 */
export function opcodePushes(op: number): number {
  return table[op]?.pushes ?? 0;
}

export const OP = {
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMP: 0x56,
  JUMPI: 0x57,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  RETURNDATACOPY: 0x3e,
  EXTCODEHASH: 0x3f,
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  REVERT: 0xfd,
  INVALID: 0xfe,
  SELFDESTRUCT: 0xff,
  LOG0: 0xa0,
  LOG4: 0xa4,
} as const;
