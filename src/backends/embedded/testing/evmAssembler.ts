// Test support: a tiny EVM assembler for generated test contracts (opcodes by name, pushes sized
// to their value, labels for jumps and code offsets, raw data). No optimisation, no validation
// beyond unknown names and oversized pushes.

const OPCODES: Record<string, number> = {
  STOP: 0x00, ADD: 0x01, MUL: 0x02, SUB: 0x03, LT: 0x10, GT: 0x11, EQ: 0x14, ISZERO: 0x15, KECCAK256: 0x20,
  ADDRESS: 0x30, BALANCE: 0x31, CALLER: 0x33, CALLVALUE: 0x34, CALLDATALOAD: 0x35, CALLDATASIZE: 0x36, CODECOPY: 0x39,
  EXTCODESIZE: 0x3b, EXTCODECOPY: 0x3c, RETURNDATASIZE: 0x3d, RETURNDATACOPY: 0x3e, EXTCODEHASH: 0x3f, SELFBALANCE: 0x47,
  POP: 0x50, MLOAD: 0x51, MSTORE: 0x52, MSTORE8: 0x53, SLOAD: 0x54, SSTORE: 0x55, JUMP: 0x56, JUMPI: 0x57, GAS: 0x5a,
  JUMPDEST: 0x5b, TLOAD: 0x5c, TSTORE: 0x5d, MCOPY: 0x5e, PUSH0: 0x5f,
  LOG0: 0xa0, LOG1: 0xa1, LOG2: 0xa2, LOG3: 0xa3, LOG4: 0xa4,
  CREATE: 0xf0, CALL: 0xf1, CALLCODE: 0xf2, RETURN: 0xf3, DELEGATECALL: 0xf4, CREATE2: 0xf5, STATICCALL: 0xfa,
  REVERT: 0xfd, INVALID: 0xfe, SELFDESTRUCT: 0xff,
  ...Object.fromEntries(Array.from({ length: 16 }, (_, i) => [[`DUP${i + 1}`, 0x80 + i], [`SWAP${i + 1}`, 0x90 + i]]).flat()),
};

/** One assembly item: an opcode name, a push of a value, a label, a push of a label's offset, raw bytes. */
export type AsmItem = string | { push: bigint | number } | { label: string } | { pushLabel: string } | { raw: Uint8Array };

/** Big-endian bytes of `value` (at least one byte). */
export function valueBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new Error(`negative push ${value}`);
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

function pushBytes(value: bigint): number[] {
  if (value === 0n) return [OPCODES.PUSH0!];
  const bytes = valueBytes(value);
  if (bytes.length > 32) throw new Error(`push of more than 32 bytes: ${value}`);
  return [0x5f + bytes.length, ...bytes];
}

/** Label pushes are always PUSH2, so offsets are known in one pass. */
const LABEL_PUSH_SIZE = 3;

/** Assembles `items` into bytecode. */
export function assemble(items: AsmItem[]): Uint8Array {
  const labels = new Map<string, number>();
  let offset = 0;
  for (const item of items) {
    if (typeof item === 'string') offset += 1;
    else if ('push' in item) offset += pushBytes(BigInt(item.push)).length;
    else if ('label' in item) labels.set(item.label, offset);
    else if ('pushLabel' in item) offset += LABEL_PUSH_SIZE;
    else offset += item.raw.length;
  }
  const out: number[] = [];
  for (const item of items) {
    if (typeof item === 'string') {
      const code = OPCODES[item];
      if (code === undefined) throw new Error(`unknown opcode ${item}`);
      out.push(code);
    } else if ('push' in item) out.push(...pushBytes(BigInt(item.push)));
    else if ('label' in item) continue;
    else if ('pushLabel' in item) {
      const at = labels.get(item.pushLabel);
      if (at === undefined) throw new Error(`unknown label ${item.pushLabel}`);
      out.push(0x61, at >> 8, at & 0xff);
    } else out.push(...item.raw);
  }
  return Uint8Array.from(out);
}

/** Init code that deploys `runtime` as the new contract's code. */
export function deployCode(runtime: Uint8Array, prelude: AsmItem[] = []): Uint8Array {
  return assemble([
    ...prelude,
    { push: runtime.length }, { pushLabel: 'runtime' }, { push: 0 }, 'CODECOPY',
    { push: runtime.length }, { push: 0 }, 'RETURN',
    { label: 'runtime' }, { raw: runtime },
  ]);
}
