// Opcodes run on the interpreter alone (no ethereumjs): words at the edges of the arithmetic's shortcuts.
import { describe, expect, it } from 'vitest';
import { Interpreter } from './interpreter.js';
import { keccak256 } from './keccak.js';
import { type BaseState, WorldState } from './worldState.js';

const TWO256 = 1n << 256n;
const TARGET = 0xb0b0bn;

/** Runs `code` as a call to TARGET and returns its result. */
function run(code: Uint8Array) {
  const codeHash = keccak256(code);
  const base: BaseState = {
    account: (address) => (address === TARGET ? { nonce: 0n, balance: 0n, codeHash, storageEmpty: true } : undefined),
    code: (address) => (address === TARGET ? code : new Uint8Array(0)),
    storage: () => 0n,
    holds: () => true,
  };
  const env = { origin: 1n, gasPrice: 0n, coinbase: 0n, timestamp: 0n, number: 0n, prevRandao: 0n, gasLimit: 0n, chainId: 1n, baseFee: 0n, blobBaseFee: 0n, clz: false, delegation: true, precompiles: new Map(), precompileContext: {} };
  // With hooks attached, a halt carries the stack it stopped with.
  const interpreter = new Interpreter(new WorldState(base), env as never, { hooks: { reset() {}, enter() {}, exit() {} } });
  const execution = interpreter.execute({ kind: 'CALL', caller: 1n, address: TARGET, codeAddress: TARGET, value: 0n, transfer: false, data: new Uint8Array(0), gas: 1_000_000, depth: 0, isStatic: false, requestedGas: 1_000_000 });
  let step = execution.next();
  while (!step.done) step = execution.next();
  return step.value;
}

const push32 = (word: bigint): number[] => [0x7f, ...Buffer.from(word.toString(16).padStart(64, '0'), 'hex')];

/** `op` applied to a (top) and b: the word it leaves on the stack, read at an INVALID after it (not through memory, which keeps only 256 bits). */
function binary(op: number, a: bigint, b: bigint): bigint {
  const result = run(Uint8Array.from([...push32(b), ...push32(a), op, 0xfe]));
  expect(result.halt?.stack).toHaveLength(1);
  return result.halt!.stack![0]!;
}

/** Words at the edges: 2^53 (doubles), 2^64 (limbs), 2^255 (sign), 2^256 - 1. */
const edges: bigint[] = [0n, 1n, 7n, (1n << 53n) - 1n, 1n << 53n, (1n << 64n) - 1n, 1n << 64n, (1n << 255n) - 1n, 1n << 255n, TWO256 - 2n, TWO256 - 1n];

describe('interpreter', () => {
  it('behavior: ADD, SUB and MUL are mod 2^256 at the edges (reduced only past 2^256 or below 0)', () => {
    const mod = (x: bigint) => ((x % TWO256) + TWO256) % TWO256;
    for (const a of edges) {
      for (const b of edges) {
        expect(binary(0x01, a, b), `ADD ${a} ${b}`).toBe(mod(a + b));
        expect(binary(0x03, a, b), `SUB ${a} ${b}`).toBe(mod(a - b));
        expect(binary(0x02, a, b), `MUL ${a} ${b}`).toBe(mod(a * b));
      }
    }
    expect(binary(0x01, TWO256 - 1n, 1n)).toBe(0n);
    expect(binary(0x03, 0n, 1n)).toBe(TWO256 - 1n);
    expect(binary(0x02, TWO256 - 1n, TWO256 - 1n)).toBe(1n);
  });
});
