// JUMPDEST analysis: which bytes of a code are JUMPDEST opcodes rather than PUSH data. Done once
// per code: keyed by the code array itself (the state cache hands out the same array for a code
// hash), bounded so a stream of distinct init codes cannot grow it.

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
