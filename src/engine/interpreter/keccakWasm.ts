// The keccak-f[1600] permutation as a small WebAssembly module, emitted byte by byte here (no
// toolchain, no embedded binary): 64-bit lanes in locals, one round's steps unrolled, native
// rotates. It only absorbs whole 136-byte blocks; padding and the byte copies are keccak.ts's.

/** Byte offsets in the module's one 64 KiB page. */
export const KECCAK_LAYOUT = {
  /** 25 lanes of 8 bytes, little-endian (so the digest is bytes 0..31). */
  state: 0,
  /** 24 round constants, written by keccak.ts. */
  roundConstants: 256,
  /** Where blocks are copied to be absorbed. */
  input: 512,
  /** Blocks the input area holds. */
  inputBlocks: 400,
} as const;

export const KECCAK_RATE = 136;

export interface KeccakExports {
  memory: { readonly buffer: ArrayBuffer };
  /** Absorbs `blocks` blocks at `pointer` into the state, permuting after each; `fresh` != 0 starts from a zero state. */
  absorb(pointer: number, blocks: number, fresh: number): void;
}

/** Rotation of lane x + 5y (FIPS 202 §3.2.2: offsets (t+1)(t+2)/2 along the walk (x, y) → (y, 2x+3y)). */
export function rotationOffsets(): number[] {
  const offsets = new Array<number>(25).fill(0);
  let x = 1;
  let y = 0;
  for (let t = 0; t < 24; t++) {
    offsets[x + 5 * y] = (((t + 1) * (t + 2)) / 2) % 64;
    [x, y] = [y, (2 * x + 3 * y) % 5];
  }
  return offsets;
}

/** The 24 iota constants from the spec's LFSR x^8 + x^6 + x^5 + x^4 + 1 (FIPS 202 §3.2.5). */
export function roundConstants(): bigint[] {
  let lfsr = 1;
  const bit = (): number => {
    const out = lfsr & 1;
    lfsr = lfsr & 0x80 ? ((lfsr << 1) ^ 0x71) & 0xff : lfsr << 1;
    return out;
  };
  const constants: bigint[] = [];
  for (let round = 0; round < 24; round++) {
    let rc = 0n;
    for (let j = 0; j < 7; j++) if (bit()) rc |= 1n << BigInt((1 << j) - 1);
    constants.push(rc);
  }
  return constants;
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function name(text: string): number[] {
  return [...uleb(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
}

const I32 = 0x7f;
const I64 = 0x7e;
const op = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  void: 0x40,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i64Load: 0x29,
  i64Store: 0x37,
  i32Const: 0x41,
  i64Const: 0x42,
  i32Eqz: 0x45,
  i32Ne: 0x47,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i64And: 0x83,
  i64Xor: 0x85,
  i64Rotl: 0x89,
} as const;

/** The `absorb` function's body (locals after its three parameters). */
function absorbBody(): number[] {
  const [pointer, blocks, fresh] = [0, 1, 2];
  const a = (i: number) => 3 + i;
  const b = (i: number) => 28 + i;
  const c = (x: number) => 53 + x;
  const d = (x: number) => 58 + x;
  const round = 63;
  const get = (local: number) => [op.localGet, local];
  const set = (local: number) => [op.localSet, local];
  const lane = (i: number) => [3, ...uleb(8 * i)]; // memarg: align 2^3, offset
  const rotation = rotationOffsets();
  const code: number[] = [];
  const emit = (...bytes: number[]) => code.push(...bytes);

  // Unless fresh, the state comes from memory (locals start at zero).
  emit(...get(fresh), op.i32Eqz, op.if, op.void);
  for (let i = 0; i < 25; i++) emit(op.i32Const, 0, op.i64Load, ...lane(KECCAK_LAYOUT.state / 8 + i), ...set(a(i)));
  emit(op.end);

  emit(op.block, op.void, op.loop, op.void);
  emit(...get(blocks), op.i32Eqz, op.brIf, 1);
  for (let i = 0; i < KECCAK_RATE / 8; i++) emit(...get(a(i)), ...get(pointer), op.i64Load, ...lane(i), op.i64Xor, ...set(a(i)));
  emit(op.i32Const, 0, ...set(round));
  emit(op.loop, op.void);
  // θ: column parities, then D[x] = C[x-1] ^ rotl(C[x+1], 1), folded into ρ and π below.
  for (let x = 0; x < 5; x++) {
    emit(...get(a(x)));
    for (let y = 1; y < 5; y++) emit(...get(a(x + 5 * y)), op.i64Xor);
    emit(...set(c(x)));
  }
  for (let x = 0; x < 5; x++) {
    emit(...get(c((x + 4) % 5)), ...get(c((x + 1) % 5)), op.i64Const, 1, op.i64Rotl, op.i64Xor, ...set(d(x)));
  }
  // ρ and π: B[y, 2x+3y] = rotl(A[x, y] ^ D[x], r[x, y]).
  for (let x = 0; x < 5; x++) {
    for (let y = 0; y < 5; y++) {
      const target = y + 5 * ((2 * x + 3 * y) % 5);
      emit(...get(a(x + 5 * y)), ...get(d(x)), op.i64Xor);
      if (rotation[x + 5 * y] !== 0) emit(op.i64Const, ...sleb7(rotation[x + 5 * y]!), op.i64Rotl);
      emit(...set(b(target)));
    }
  }
  // χ: A[x, y] = B[x, y] ^ (~B[x+1, y] & B[x+2, y]).
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      emit(...get(b(x + 5 * y)), ...get(b(((x + 1) % 5) + 5 * y)), op.i64Const, 0x7f, op.i64Xor);
      emit(...get(b(((x + 2) % 5) + 5 * y)), op.i64And, op.i64Xor, ...set(a(x + 5 * y)));
    }
  }
  // ι: the round's constant, read from memory at roundConstants + 8 * round.
  emit(...get(a(0)), ...get(round), op.i64Load, 3, ...uleb(KECCAK_LAYOUT.roundConstants), op.i64Xor, ...set(a(0)));
  emit(...get(round), op.i32Const, 8, op.i32Add, op.localTee, round, op.i32Const, ...sleb32(24 * 8), op.i32Ne, op.brIf, 0);
  emit(op.end);
  emit(...get(pointer), op.i32Const, ...sleb32(KECCAK_RATE), op.i32Add, ...set(pointer));
  emit(...get(blocks), op.i32Const, 1, op.i32Sub, ...set(blocks));
  emit(op.br, 0, op.end, op.end);

  for (let i = 0; i < 25; i++) emit(op.i32Const, 0, ...get(a(i)), op.i64Store, ...lane(KECCAK_LAYOUT.state / 8 + i));
  emit(op.end);

  const locals = vec([
    [...uleb(60), I64],
    [1, I32],
  ]);
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

/** Signed LEB128 of 0..63 (one byte: bit 6 clear). */
function sleb7(n: number): number[] {
  return [n];
}

/** Signed LEB128 of a small non-negative i32. */
function sleb32(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

/** The module's bytes: one memory page and `absorb(pointer, blocks, fresh)`, both exported. */
export function keccakModuleBytes(): Uint8Array {
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32]]), ...vec([])]])),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, 1]])),
    ...section(7, vec([
      [...name('memory'), 0x02, 0],
      [...name('absorb'), 0x00, 0],
    ])),
    ...section(10, vec([absorbBody()])),
  ];
  return Uint8Array.from(bytes);
}

/** The part of the WebAssembly API used here (the project's lib settings leave its types out). */
export interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
  validate(bytes: Uint8Array): boolean;
}

export const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** Compiles and instantiates the module synchronously (a few KiB) and writes its round constants. */
export function instantiateKeccak(): KeccakExports {
  const instance = new webAssembly.Instance(new webAssembly.Module(keccakModuleBytes()));
  const exports = instance.exports as unknown as KeccakExports;
  const memory = new DataView(exports.memory.buffer);
  roundConstants().forEach((rc, i) => memory.setBigUint64(KECCAK_LAYOUT.roundConstants + 8 * i, rc, true));
  return exports;
}
