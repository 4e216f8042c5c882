// JUMPDEST analysis: which bytes of a code are JUMPDEST opcodes rather than PUSH data. Done once
// per code array (the state manager's code cache hands out the same array for a code hash, and a
// run's restarts reuse the arrays they loaded); a WeakMap, so the garbage collector bounds it.

const cache = new WeakMap<Uint8Array, Uint8Array>();

export function jumpDests(code: Uint8Array): Uint8Array {
  let dests = cache.get(code);
  if (dests === undefined) {
    dests = new Uint8Array(code.length);
    for (let pc = 0; pc < code.length; pc++) {
      const op = code[pc]!;
      if (op === 0x5b) dests[pc] = 1;
      else if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f;
    }
    cache.set(code, dests);
  }
  return dests;
}
