// Generated EVM programs for the differential fuzzer: random opcode sequences whose arguments are
// mostly pushed right before them (so most programs run deep rather than failing at once), biased
// to the values where gas and semantics have edges (zero, word boundaries, warm and cold addresses,
// the other contracts, precompiles, small memory offsets and huge ones), with nested calls,
// creates from init code in memory, loops through JUMPDESTs, reverts and self-destructs, and calls
// into accounts delegated by EIP-7702 designators.

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
export class Rng {
  constructor(private state: number) {}

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Addresses of the generated contracts in every case. */
export const CONTRACTS = [0xc0n, 0xc1n, 0xc2n, 0xc3n].map((n) => (0xccn << 152n) | n);
export const SENDER = (0xaan << 152n) | 0x01n;
/** Accounts whose code is an EIP-7702 designator (set per case: a contract, a precompile, another of these, an EOA). */
export const DELEGATED = [0xd0n, 0xd1n].map((n) => (0xden << 152n) | n);
export const COINBASE = (0xcbn << 152n) | 0x02n;

const ALL_OPCODES: number[] = [
  0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e,
  0x20, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
  0x49, 0x4a, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xf0, 0xf1,
  0xf2, 0xf3, 0xf4, 0xf5, 0xfa, 0xfd, 0xfe, 0xff, 0x0c, 0x21, 0x4b, 0xb0, 0xef, 0x40,
];

/** Stack inputs of each opcode (for pushing arguments first). */
function inputs(op: number): number {
  if (op >= 0x80 && op <= 0x8f) return op - 0x7f;
  if (op >= 0x90 && op <= 0x9f) return op - 0x8e;
  if (op >= 0xa0 && op <= 0xa4) return 2 + op - 0xa0;
  const table: Record<number, number> = {
    0x01: 2, 0x02: 2, 0x03: 2, 0x04: 2, 0x05: 2, 0x06: 2, 0x07: 2, 0x08: 3, 0x09: 3, 0x0a: 2, 0x0b: 2, 0x10: 2, 0x11: 2, 0x12: 2, 0x13: 2, 0x14: 2,
    0x15: 1, 0x16: 2, 0x17: 2, 0x18: 2, 0x19: 1, 0x1a: 2, 0x1b: 2, 0x1c: 2, 0x1d: 2, 0x1e: 1, 0x20: 2, 0x31: 1, 0x35: 1, 0x37: 3, 0x39: 3, 0x3b: 1, 0x3c: 4,
    0x3e: 3, 0x3f: 1, 0x49: 1, 0x50: 1, 0x51: 1, 0x52: 2, 0x53: 2, 0x54: 1, 0x55: 2, 0x56: 1, 0x57: 2, 0x5c: 1, 0x5d: 2, 0x5e: 3, 0xf0: 3, 0xf1: 7,
    0xf2: 7, 0xf3: 2, 0xf4: 6, 0xf5: 4, 0xfa: 6, 0xfd: 2, 0xff: 1,
  };
  return table[op] ?? 0;
}

const WORD_EDGES = [0n, 1n, 2n, 31n, 32n, 33n, 255n, 256n, (1n << 255n), (1n << 256n) - 1n, (1n << 255n) - 1n, (1n << 64n), (1n << 128n) + 7n];

function argument(rng: Rng, op: number, index: number): bigint {
  const r = rng.next();
  // Addresses for account opcodes and calls.
  const isAddressArg =
    ((op === 0x31 || op === 0x3b || op === 0x3c || op === 0x3f || op === 0xff) && index === 0) || ((op === 0xf1 || op === 0xf2 || op === 0xf4 || op === 0xfa) && index === 1);
  if (isAddressArg) {
    if (r < 0.4) return rng.pick(CONTRACTS);
    if (r < 0.5) return rng.pick(DELEGATED);
    if (r < 0.65) return BigInt(1 + rng.int(9));
    if (r < 0.72) return SENDER;
    if (r < 0.76) return COINBASE;
    // BLS12-381 (Prague) and P256VERIFY (0x100, Osaka).
    if (r < 0.8) return rng.pick([0x10n, 0x11n, 0x12n, 0x100n]);
    return BigInt(rng.int(1 << 20)) | (0xddn << 152n);
  }
  // Call gas.
  if ((op === 0xf1 || op === 0xf2 || op === 0xf4 || op === 0xfa) && index === 0) {
    return rng.pick([0n, 1n, 2300n, 5000n, 30000n, 100000n, (1n << 256n) - 1n, BigInt(rng.int(200000))]);
  }
  // Values: mostly zero.
  if (((op === 0xf1 || op === 0xf2) && index === 2) || ((op === 0xf0 || op === 0xf5) && index === 0)) return rng.chance(0.6) ? 0n : BigInt(rng.int(1000));
  // Memory offsets and lengths.
  const memArg: Record<number, number[]> = {
    0x20: [0, 1], 0x37: [0, 1, 2], 0x39: [0, 1, 2], 0x3c: [1, 2, 3], 0x3e: [0, 1, 2], 0x51: [0], 0x52: [0], 0x53: [0], 0x5e: [0, 1, 2], 0xf3: [0, 1], 0xfd: [0, 1],
    0xa0: [0, 1], 0xa1: [0, 1], 0xa2: [0, 1], 0xa3: [0, 1], 0xa4: [0, 1], 0xf1: [3, 4, 5, 6], 0xf2: [3, 4, 5, 6], 0xf4: [2, 3, 4, 5], 0xfa: [2, 3, 4, 5],
  };
  if (memArg[op]?.includes(index)) {
    if (r < 0.75) return BigInt(rng.int(r < 0.4 ? 33 : 300));
    if (r < 0.9) return BigInt(rng.int(5000));
    if (r < 0.96) return 0n;
    return rng.pick([1n << 32n, (1n << 256n) - 1n, 1n << 64n, 100000n]);
  }
  // Storage slots.
  if ((op === 0x54 || op === 0x55 || op === 0x5c || op === 0x5d) && index === 0) return BigInt(rng.int(4));
  if ((op === 0x55 || op === 0x5d) && index === 1) return rng.pick([0n, 0n, 1n, 2n, 7n, BigInt(rng.int(1 << 30))]);
  if (op === 0x0a && index === 1) return rng.chance(0.7) ? BigInt(rng.int(300)) : rng.pick(WORD_EDGES);
  if (r < 0.5) return rng.pick(WORD_EDGES);
  if (r < 0.85) return BigInt(rng.int(1000));
  let w = 0n;
  for (let i = 0; i < 4; i++) w = (w << 64n) | BigInt(rng.int(2 ** 30)) * BigInt(rng.int(2 ** 30));
  return w & ((1n << 256n) - 1n);
}

function pushBytes(value: bigint): number[] {
  if (value === 0n) return [0x5f];
  const hex = value.toString(16);
  const bytes = Math.ceil(hex.length / 2);
  const out = [0x5f + bytes];
  const padded = hex.padStart(bytes * 2, '0');
  for (let i = 0; i < bytes; i++) out.push(parseInt(padded.slice(i * 2, i * 2 + 2), 16));
  return out;
}

/** A small init code: returns a runtime (sometimes starting 0xef, empty, or too large), reverts, or halts. */
function initCode(rng: Rng): number[] {
  const kind = rng.int(7);
  const runtime = rng.pick([[0x60, 0x01, 0x60, 0x00, 0x55, 0x00], [0x33, 0xff], [0x00], [0x5f, 0x35, 0x60, 0x00, 0x52, 0x60, 0x20, 0x5f, 0xf3], [0xef, 0x00]]);
  switch (kind) {
    case 0:
    case 1: {
      // Store the runtime in memory and return it.
      const value = BigInt('0x' + runtime.map((b) => b.toString(16).padStart(2, '0')).join(''));
      return [...pushBytes(value), 0x5f, 0x52, ...pushBytes(BigInt(runtime.length)), ...pushBytes(BigInt(32 - runtime.length)), 0xf3];
    }
    case 2:
      return [...pushBytes(BigInt(rng.int(64))), 0x5f, 0xfd];
    case 3:
      return [0x60, 0x2a, 0x60, 0x00, 0x55, 0x00];
    case 4:
      return [...pushBytes(BigInt(rng.pick([0, 24577, 100, 3000]))), 0x5f, 0xf3];
    case 5:
      return [0xfe];
    default:
      return [0x5a, 0x5f, 0x5f, 0x5f, 0x5f, ...pushBytes(rng.pick(CONTRACTS)), 0x5a, 0xf1, 0x00];
  }
}

/** A generated contract code of about `length` instructions. */
export function generateProgram(rng: Rng, length: number): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < length; i++) {
    const r = rng.next();
    if (r < 0.01) {
      // A loop that runs until the frame's gas is gone.
      out.push(0x5b);
      const dest = out.length - 1;
      out.push(0x60, 0x01, 0x5f, 0x54, 0x01, 0x5f, 0x55, ...pushBytes(BigInt(dest)), 0x56);
      continue;
    }
    if (r < 0.05) {
      // A loop: JUMPDEST, some work, a conditional jump back that runs until gas or a counter ends.
      out.push(0x5b);
      const dest = out.length - 1;
      out.push(0x5a, 0x60, 0x02, 0x06, 0x15, ...pushBytes(BigInt(dest)), 0x57);
      continue;
    }
    if (r < 0.1) {
      // CREATE or CREATE2 of init code placed in memory.
      const code = initCode(rng);
      if (code.length <= 32) {
        const value = BigInt('0x' + code.map((b) => b.toString(16).padStart(2, '0')).join(''));
        out.push(...pushBytes(value), 0x5f, 0x52);
        const create2 = rng.chance(0.4);
        if (create2) out.push(...pushBytes(BigInt(rng.int(3))));
        out.push(...pushBytes(BigInt(code.length)), ...pushBytes(BigInt(32 - code.length)), ...pushBytes(rng.chance(0.7) ? 0n : BigInt(rng.int(100))), create2 ? 0xf5 : 0xf0);
        continue;
      }
    }
    const op = rng.chance(0.15) ? 0x80 + rng.int(32) : rng.pick(ALL_OPCODES);
    if (op === 0x56 || op === 0x57) {
      // Jumps: mostly forward to a JUMPDEST placed right after, sometimes anywhere.
      if (op === 0x57) out.push(...pushBytes(rng.chance(0.5) ? 0n : 1n));
      if (rng.chance(0.8)) {
        const target = out.length + 4;
        out.push(0x61, (target >> 8) & 0xff, target & 0xff, op, 0x5b);
      } else {
        out.push(...pushBytes(BigInt(rng.int(out.length + 10))), op);
      }
      continue;
    }
    if (!rng.chance(0.05)) for (let k = inputs(op) - 1; k >= 0; k--) out.push(...pushBytes(argument(rng, op, k)));
    out.push(op);
    if (op === 0xf1 || op === 0xf2 || op === 0xf4 || op === 0xfa || op === 0xf0 || op === 0xf5) {
      // Look at what came back.
      if (rng.chance(0.5)) out.push(0x3d, 0x5f, 0x5f, 0x3e);
    }
  }
  // End: return some memory, revert, or fall off the end.
  const end = rng.int(4);
  if (end === 0) out.push(0x60, 0x40, 0x5f, 0xf3);
  else if (end === 1) out.push(0x60, 0x20, 0x5f, 0xfd);
  return Uint8Array.from(out);
}
