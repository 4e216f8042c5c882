// 256-bit words as BigInt (the interpreter's representation) against eight 32-bit limbs in one
// typed-array stack (no allocation per operation), on the operations the interpreter spends its
// word time on: ADD, SUB, MUL, LT, DUP, a 32-byte load into a word (MLOAD, CALLDATALOAD, a keccak
// digest), a word stored as 32 bytes (MSTORE), and a word as a storage map's key (SLOAD). Values
// small (below 2^64: counters, amounts, offsets) and large (near 2^256: hashes, masks, addresses
// with high bits). The BigInt side is the interpreter's own code (words.ts, its ADD/SUB/MUL
// reductions); the limb side is written here for the measurement. Both run interleaved in one
// process, best of `--rounds`.
//
//   npx tsx bench/wordRepresentation.bench.ts [--ops 2000000] [--rounds 5]
import { viewToWord, wordToView } from '../src/engine/interpreter/words.js';
import { numberArg } from './erc20Workload.js';

const OPS = numberArg('ops', 2_000_000);
const ROUNDS = numberArg('rounds', 5);
const M256 = (1n << 256n) - 1n;
const TWO256 = 1n << 256n;
const TWO32 = 4294967296;

/** Eight 32-bit limbs per word, least significant first, words at 8 * index. */
class LimbStack {
  readonly w = new Uint32Array(1024 * 8);
  private readonly a16 = new Float64Array(16);
  private readonly b16 = new Float64Array(16);

  set(i: number, v: bigint): void {
    for (let k = 0; k < 8; k++) this.w[i * 8 + k] = Number((v >> BigInt(32 * k)) & 0xffffffffn);
  }

  get(i: number): bigint {
    let v = 0n;
    for (let k = 7; k >= 0; k--) v = (v << 32n) | BigInt(this.w[i * 8 + k]!);
    return v;
  }

  /** words[r] = words[x] + words[y] mod 2^256 */
  add(r: number, x: number, y: number): void {
    const w = this.w;
    let carry = 0;
    for (let k = 0; k < 8; k++) {
      const s = w[x * 8 + k]! + w[y * 8 + k]! + carry;
      carry = s >= TWO32 ? 1 : 0;
      w[r * 8 + k] = s;
    }
  }

  sub(r: number, x: number, y: number): void {
    const w = this.w;
    let borrow = 0;
    for (let k = 0; k < 8; k++) {
      const d = w[x * 8 + k]! - w[y * 8 + k]! - borrow;
      borrow = d < 0 ? 1 : 0;
      w[r * 8 + k] = d;
    }
  }

  /** Low 256 bits of the product, by 16-bit halves (each partial product and column sum stays exact in a double). */
  mul(r: number, x: number, y: number): void {
    const w = this.w;
    const a = this.a16;
    const b = this.b16;
    for (let k = 0; k < 8; k++) {
      const p = w[x * 8 + k]!;
      const q = w[y * 8 + k]!;
      a[2 * k] = p & 0xffff;
      a[2 * k + 1] = p >>> 16;
      b[2 * k] = q & 0xffff;
      b[2 * k + 1] = q >>> 16;
    }
    // Only the halves below each operand's highest non-zero one take part (small words: a few).
    let na = 16;
    while (na > 0 && a[na - 1] === 0) na--;
    let nb = 16;
    while (nb > 0 && b[nb - 1] === 0) nb--;
    let carry = 0;
    for (let col = 0; col < 16; col += 2) {
      let lo = carry;
      const from = col - nb + 1 > 0 ? col - nb + 1 : 0;
      const to = col < na - 1 ? col : na - 1;
      for (let i = from; i <= to; i++) lo += a[i]! * b[col - i]!;
      // Math.floor rather than `%`: a double's remainder is a call into the C library.
      let hi = Math.floor(lo / 65536);
      const lowHalf = lo - hi * 65536;
      const from1 = col + 2 - nb > 0 ? col + 2 - nb : 0;
      const to1 = col + 1 < na - 1 ? col + 1 : na - 1;
      for (let i = from1; i <= to1; i++) hi += a[i]! * b[col + 1 - i]!;
      carry = Math.floor(hi / 65536);
      const highHalf = hi - carry * 65536;
      w[r * 8 + (col >> 1)] = lowHalf + highHalf * 65536;
    }
  }

  lt(x: number, y: number): boolean {
    const w = this.w;
    for (let k = 7; k >= 0; k--) {
      const p = w[x * 8 + k]!;
      const q = w[y * 8 + k]!;
      if (p !== q) return p < q;
    }
    return false;
  }

  copy(r: number, x: number): void {
    const w = this.w;
    const o = r * 8;
    const p = x * 8;
    w[o] = w[p]!;
    w[o + 1] = w[p + 1]!;
    w[o + 2] = w[p + 2]!;
    w[o + 3] = w[p + 3]!;
    w[o + 4] = w[p + 4]!;
    w[o + 5] = w[p + 5]!;
    w[o + 6] = w[p + 6]!;
    w[o + 7] = w[p + 7]!;
  }

  load(r: number, view: DataView, offset: number): void {
    const w = this.w;
    for (let k = 0; k < 8; k++) w[r * 8 + k] = view.getUint32(offset + 28 - 4 * k);
  }

  store(x: number, view: DataView, offset: number): void {
    const w = this.w;
    for (let k = 0; k < 8; k++) view.setUint32(offset + 28 - 4 * k, w[x * 8 + k]!);
  }

  /** The word as a Map key: sixteen UTF-16 code units (as the state read cache keys its slots). */
  key(x: number): string {
    const w = this.w;
    const o = x * 8;
    return String.fromCharCode(w[o]! & 0xffff, w[o]! >>> 16, w[o + 1]! & 0xffff, w[o + 1]! >>> 16, w[o + 2]! & 0xffff, w[o + 2]! >>> 16, w[o + 3]! & 0xffff, w[o + 3]! >>> 16, w[o + 4]! & 0xffff, w[o + 4]! >>> 16, w[o + 5]! & 0xffff, w[o + 5]! >>> 16, w[o + 6]! & 0xffff, w[o + 6]! >>> 16, w[o + 7]! & 0xffff, w[o + 7]! >>> 16);
  }
}

const SMALL = [12_345n, 987_654_321n, 1n << 40n, 77n];
const LARGE = [M256 - 5n, (1n << 255n) + 12_345n, 0xa9059cbb00000000000000000000000000000000000000000000000000000000n, (1n << 200n) * 3n + 1n];

let sink = 0;

/** ns per operation of one pass of `run` (OPS operations). */
function time(run: () => void): number {
  const started = performance.now();
  run();
  return ((performance.now() - started) * 1e6) / OPS;
}

interface Row {
  op: string;
  size: string;
  bigint: number;
  limbs: number;
}

function measure(op: string, size: 'small' | 'large', values: bigint[]): Row {
  const n = values.length;
  // BigInt: the interpreter's stack is a JavaScript array of bigints.
  const stack: bigint[] = [...values, ...values];
  const limbs = new LimbStack();
  values.forEach((v, i) => limbs.set(i, v));
  const bytes = new Uint8Array(64 + 32 * n);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => wordToView(v, view, 32 * i));
  const storage = new Map<bigint, number>(values.map((v, i) => [v, i]));
  const limbStorage = new Map<string, number>(values.map((_, i) => [limbs.key(i), i]));
  const slot = 2 * n;
  let bigint: () => void;
  let limb: () => void;
  switch (op) {
    case 'ADD':
      bigint = () => {
        for (let i = 0; i < OPS; i++) {
          const sum = stack[i % n]! + stack[(i + 1) % n]!;
          stack[n + (i % n)] = sum > M256 ? sum - TWO256 : sum;
        }
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) limbs.add(slot, i % n, (i + 1) % n);
      };
      break;
    case 'SUB':
      bigint = () => {
        for (let i = 0; i < OPS; i++) {
          const difference = stack[i % n]! - stack[(i + 1) % n]!;
          stack[n + (i % n)] = difference < 0n ? difference + TWO256 : difference;
        }
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) limbs.sub(slot, i % n, (i + 1) % n);
      };
      break;
    case 'MUL':
      bigint = () => {
        for (let i = 0; i < OPS; i++) {
          const product = stack[i % n]! * stack[(i + 1) % n]!;
          stack[n + (i % n)] = product > M256 ? product & M256 : product;
        }
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) limbs.mul(slot, i % n, (i + 1) % n);
      };
      break;
    case 'LT':
      bigint = () => {
        for (let i = 0; i < OPS; i++) sink += stack[i % n]! < stack[(i + 1) % n]! ? 1 : 0;
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) sink += limbs.lt(i % n, (i + 1) % n) ? 1 : 0;
      };
      break;
    case 'DUP':
      bigint = () => {
        for (let i = 0; i < OPS; i++) stack[n + (i % n)] = stack[i % n]!;
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) limbs.copy(slot, i % n);
      };
      break;
    case '32 bytes → word':
      bigint = () => {
        for (let i = 0; i < OPS; i++) stack[n + (i % n)] = viewToWord(view, 32 * (i % n));
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) limbs.load(slot, view, 32 * (i % n));
      };
      break;
    case 'word → 32 bytes':
      bigint = () => {
        for (let i = 0; i < OPS; i++) wordToView(stack[i % n]!, view, 32 * n);
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) limbs.store(i % n, view, 32 * n);
      };
      break;
    case 'storage key lookup':
      bigint = () => {
        for (let i = 0; i < OPS; i++) sink += storage.get(stack[i % n]!)!;
      };
      limb = () => {
        for (let i = 0; i < OPS; i++) sink += limbStorage.get(limbs.key(i % n))!;
      };
      break;
    default:
      throw new Error(op);
  }
  // Both sides agree (ADD, SUB and MUL checked on the last pair they computed).
  bigint();
  limb();
  if (op === 'ADD' || op === 'SUB' || op === 'MUL') {
    const last = (OPS - 1) % n;
    if (limbs.get(slot) !== stack[n + last]) throw new Error(`${op} ${size}: limbs ${limbs.get(slot)} vs BigInt ${stack[n + last]}`);
  }
  // Interleaved: each side's best of ROUNDS, alternating.
  let bestBigint = Infinity;
  let bestLimbs = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    bestBigint = Math.min(bestBigint, time(bigint));
    bestLimbs = Math.min(bestLimbs, time(limb));
  }
  return { op, size, bigint: bestBigint, limbs: bestLimbs };
}

const ops = ['ADD', 'SUB', 'MUL', 'LT', 'DUP', '32 bytes → word', 'word → 32 bytes', 'storage key lookup'];
const rows: Row[] = [];
for (const op of ops) for (const size of ['small', 'large'] as const) rows.push(measure(op, size, size === 'small' ? SMALL : LARGE));
console.log(`256-bit words: BigInt against 8 × 32-bit limbs, ns per operation (best of ${ROUNDS} × ${OPS.toLocaleString('en')} operations each)\n`);
console.log('| operation | values | BigInt ns | limbs ns | limbs / BigInt |');
console.log('| --- | --- | ---: | ---: | ---: |');
for (const r of rows) console.log(`| ${r.op} | ${r.size} | ${r.bigint.toFixed(1)} | ${r.limbs.toFixed(1)} | ${(r.limbs / r.bigint).toFixed(2)} |`);
if (sink === 0.5) console.log(sink);
