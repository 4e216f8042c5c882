// The opcodes whose only checks come before their work, in ethereumjs's order: the static fee
// (no dynamic gas), then the stack's height (too few words, then no room for the one pushed). The
// interpreter's loop makes these checks once from these tables, before its switch; every other
// opcode (dynamic gas, a static-call check, a gas-first halt) checks in its own case.

const STACK_LIMIT = 1024;

/** [first opcode, last opcode, fee, words taken, words pushed]. */
type Row = [number, number, number, number, 0 | 1];

const ROWS: Row[] = [
  [0x01, 0x01, 3, 2, 0], // ADD
  [0x02, 0x02, 5, 2, 0], // MUL
  [0x03, 0x03, 3, 2, 0], // SUB
  [0x04, 0x07, 5, 2, 0], // DIV SDIV MOD SMOD
  [0x08, 0x09, 8, 3, 0], // ADDMOD MULMOD
  [0x0b, 0x0b, 5, 2, 0], // SIGNEXTEND
  [0x10, 0x14, 3, 2, 0], // LT GT SLT SGT EQ
  [0x15, 0x15, 3, 1, 0], // ISZERO
  [0x16, 0x18, 3, 2, 0], // AND OR XOR
  [0x19, 0x19, 3, 1, 0], // NOT
  [0x1a, 0x1d, 3, 2, 0], // BYTE SHL SHR SAR
  [0x30, 0x30, 2, 0, 1], // ADDRESS
  [0x32, 0x34, 2, 0, 1], // ORIGIN CALLER CALLVALUE
  [0x35, 0x35, 3, 1, 0], // CALLDATALOAD
  [0x36, 0x36, 2, 0, 1], // CALLDATASIZE
  [0x38, 0x38, 2, 0, 1], // CODESIZE
  [0x3a, 0x3a, 2, 0, 1], // GASPRICE
  [0x3d, 0x3d, 2, 0, 1], // RETURNDATASIZE
  [0x41, 0x46, 2, 0, 1], // COINBASE TIMESTAMP NUMBER PREVRANDAO GASLIMIT CHAINID
  [0x47, 0x47, 5, 0, 1], // SELFBALANCE
  [0x48, 0x48, 2, 0, 1], // BASEFEE
  [0x49, 0x49, 3, 1, 0], // BLOBHASH
  [0x4a, 0x4a, 2, 0, 1], // BLOBBASEFEE
  [0x50, 0x50, 2, 1, 0], // POP
  [0x56, 0x56, 8, 1, 0], // JUMP
  [0x57, 0x57, 10, 2, 0], // JUMPI
  [0x58, 0x5a, 2, 0, 1], // PC MSIZE GAS
  [0x5b, 0x5b, 1, 0, 0], // JUMPDEST
  [0x5c, 0x5c, 100, 1, 0], // TLOAD
  [0x5f, 0x5f, 2, 0, 1], // PUSH0
  [0x60, 0x7f, 3, 0, 1], // PUSH1..PUSH32
];

/** The static fee of a plain opcode; 0 for every other opcode (its case charges). */
export const PLAIN_FEE = new Uint8Array(256);
/** The stack words a plain opcode needs. */
export const STACK_IN = new Uint8Array(256);
/** The stack height above which a plain opcode overflows (the limit, less one for an opcode that pushes). */
export const STACK_ROOM = new Uint16Array(256).fill(STACK_LIMIT);

/** The three packed, for one load in the loop: fee | taken << 8 | room << 16 (0 for other opcodes). */
export const PLAIN = new Uint32Array(256);

function plain(op: number, fee: number, taken: number, pushed: 0 | 1): void {
  PLAIN_FEE[op] = fee;
  STACK_IN[op] = taken;
  STACK_ROOM[op] = STACK_LIMIT - pushed;
  PLAIN[op] = fee | (taken << 8) | ((STACK_LIMIT - pushed) << 16);
}

for (const [first, last, fee, taken, pushed] of ROWS) for (let op = first; op <= last; op++) plain(op, fee, taken, pushed);
// DUP1..DUP16 read the nth word and push; SWAP1..SWAP16 need n + 1 words.
for (let n = 1; n <= 16; n++) {
  plain(0x7f + n, 3, n, 1);
  plain(0x8f + n, 3, n + 1, 0);
}
