// A synchronous EVM interpreter for Cancun and Prague message calls and creates: no await in the
// opcode loop (an execution is a generator that pauses only when its driver asks, at jumps and
// message starts, so a long loop still lets the event loop in), 256-bit words as BigInt, gas as a double (exact below 2^53; callers keep gas
// limits far below that), memory grown as used, JUMPDESTs analysed once per code. Its results
// equal ethereumjs's (the oracle, see differential.test.ts) including the order in which
// ethereumjs raises errors; where ethereumjs departs from the specification, or a feature is not
// implemented here (BLOCKHASH, the asynchronous precompiles), it throws Unsupported and the caller
// runs the request on ethereumjs instead. EIP-7702 delegated code runs here: a call to an account
// whose code is a designator (0xef0100 ‖ address) runs the delegate's code, never followed further,
// and pays the delegate's warm or cold access; EXTCODE* see the designator itself.
import { bigIntToBytes, bytesToHex, generateAddress, generateAddress2, setLengthLeft } from '@ethereumjs/util';
import { writesMemory } from '../record/stepTracker.js';
import { gasNeedAround } from './gasNeed.js';
import { haltingStepCost } from './haltingStepCost.js';
import { jumpDests } from './jumpDests.js';
import { keccak256, keccak256Word } from './keccak.js';
import { Memory } from './memory.js';
import { PLAIN } from './plainOpcodes.js';
import { Errors, type ExecutionEnv, type FrameHooks, type Message, type MessageResult, type SyncPrecompile } from './message.js';
import { M256, addressBytes, bytesToBig, bytesToSmall, bytesToWord, exp, leadingZeros, toSigned } from './words.js';
import { type Account, type StateMiss, Unsupported, type WorldState, accountLoads } from './worldState.js';

export { Errors, addressBytes };
export type { ExecutionEnv, FrameHooks, HaltFacts, Message, MessageKind, MessageResult, NotStartedCall, StepHooks, SyncPrecompile, TouchHooks } from './message.js';

const ADDR = (1n << 160n) - 1n;
const TWO256 = 1n << 256n;
const TWO64M1 = (1n << 64n) - 1n;
const EMPTY = new Uint8Array(0);
const MAX_CODE = 24576;
const MAX_INITCODE = 49152;
const STACK_LIMIT = 1024;
const DEPTH_LIMIT = 1024;
/** ethereumjs's memory store starts at, and grows by, this many bytes. */
const STORE_CHUNK = 8192;
/** Opcodes whose memory window vmTrace shows, as a table the loop reads. */
const WRITES_MEMORY = Uint8Array.from({ length: 256 }, (_, op) => (writesMemory(op) ? 1 : 0));

export function isDelegation(code: Uint8Array): boolean {
  return code.length >= 3 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/**
 * The code a call to `address` runs: its own, or with EIP-7702 active and a designator there, its
 * delegate's (one step, never followed further; a precompile's is empty).
 */
export function codeToRun(world: WorldState, delegation: boolean, address: bigint): Uint8Array {
  const code = world.code(world.get(address));
  return delegation && isDelegation(code) ? world.code(world.get(delegateOf(code))) : code;
}

/**
 * The address an EIP-7702 designator names. Code with the prefix and another length (only a state
 * override can make one) goes to ethereumjs, which reads bytes 3 to 24 as the address and fails.
 */
export function delegateOf(code: Uint8Array): bigint {
  if (code.length !== 23) throw new Unsupported('EIP-7702 designator of another length than 23 bytes');
  return bytesToBig(code.subarray(3, 23));
}

class Halt {
  constructor(
    readonly error: string | undefined,
    readonly output: Uint8Array = EMPTY,
    /** For an out-of-gas halt, the charge that did not fit (the halting step's cost). */
    readonly failedCharge = 0,
  ) {}
}

// The loop's checks as module functions, not closures over its locals: V8 inlines these into the
// generator, and did not inline its closures (each check was a call).

/** `gas` less `amount`, or an out-of-gas halt. */
function charge(gas: number, amount: number): number {
  if (amount > gas) throw new Halt(Errors.OUT_OF_GAS, EMPTY, amount);
  return gas - amount;
}

function need(stack: bigint[], n: number): void {
  if (stack.length < n) throw new Halt(Errors.STACK_UNDERFLOW);
}

function push(stack: bigint[], value: bigint): void {
  if (stack.length >= STACK_LIMIT) throw new Halt(Errors.STACK_OVERFLOW);
  stack.push(value);
}

export interface InterpreterOptions {
  hooks?: FrameHooks;
  /**
   * Called at every message and every 4096th JUMP/JUMPI; throws to stop the execution (the
   * execution guard's deadline and cancellation).
   */
  check?: () => void;
  /**
   * Asked at the same points; true pauses the execution (the generator yields) so the driver can
   * give the event loop a turn, then resumes it where it stopped.
   */
  shouldPause?: () => boolean;
  /**
   * Works out, along this run, the least gas each frame needs to take the same path
   * (MessageResult.gasNeed; eth_estimateGas's first guess).
   */
  trackGasNeed?: boolean;
}

/**
 * An execution in progress: yields undefined when it pauses, a StateMiss when an opcode stopped
 * before a base read not in memory yet (the driver loads it before resuming), and returns the
 * message's result.
 */
export type Execution = Generator<StateMiss | undefined, MessageResult, void>;

const CHECK_EVERY_JUMPS = 4096;

export class Interpreter {
  private jumps = 0;
  private readonly hooks: FrameHooks | undefined;
  private readonly check: (() => void) | undefined;
  private readonly shouldPause: (() => boolean) | undefined;
  private readonly trackGasNeed: boolean;
  /**
   * With trackGasNeed: false once a frame halted exceptionally (it took all its gas, so how much
   * it was given changes what its parent spends): the run's gasNeed is then not known.
   */
  gasNeedKnown = true;

  constructor(
    readonly world: WorldState,
    readonly env: ExecutionEnv,
    options: InterpreterOptions = {},
  ) {
    this.hooks = options.hooks;
    this.check = options.check;
    this.shouldPause = options.shouldPause;
    this.trackGasNeed = options.trackGasNeed === true;
  }

  /** gasNeedAround for a child's result; a child that halted exceptionally makes the run's need unknown. */
  private needForChild(frameGas: number, gasAfterCost: number, result: MessageResult, stipend: number): number {
    const need = gasNeedAround(frameGas, gasAfterCost, result, stipend);
    if (need === undefined) this.gasNeedKnown = false;
    return need ?? 0;
  }

  /** The deadline check, and a pause when the driver asks for one (checked again on resuming). */
  private *checkpoint(): Generator<undefined, void, void> {
    this.check?.();
    if (this.shouldPause?.()) {
      yield;
      this.check?.();
    }
  }

  /** Runs a message (call or create) with journaling; the caller already checked depth and funds. */
  *execute(message: Message): Execution {
    yield* this.checkpoint();
    this.hooks?.enter(message);
    const result = message.kind === 'CREATE' || message.kind === 'CREATE2' ? yield* this.create(message) : yield* this.call(message);
    this.hooks?.exit(message, result);
    return result;
  }

  private transfer(message: Message): void {
    if (!message.transfer) return;
    const world = this.world;
    const from = world.get(message.caller);
    world.setBalance(from, from.balance - message.value);
    const to = world.get(message.address);
    world.setBalance(to, to.balance + message.value);
  }

  private *call(message: Message): Execution {
    const world = this.world;
    const checkpoint = world.checkpoint();
    const refund = world.refund;
    this.transfer(message);
    let result: MessageResult;
    const precompile = this.env.precompiles.get(message.codeAddress);
    if (precompile !== undefined) {
      result = this.runPrecompile(message, precompile);
      if (this.trackGasNeed) result.gasNeed = message.gas - result.gasLeft;
    } else {
      const code = codeToRun(world, this.env.delegation, message.codeAddress);
      if (code.length === 0) {
        result = { error: undefined, gasLeft: message.gas, output: EMPTY };
        if (this.trackGasNeed) result.gasNeed = 0;
      } else result = yield* this.run(message, code);
    }
    if (result.error !== undefined) {
      world.revert(checkpoint);
      world.refund = refund;
    }
    return result;
  }

  private runPrecompile(message: Message, precompile: SyncPrecompile): MessageResult {
    if (message.codeAddress > 9n) throw new Unsupported('asynchronous precompile');
    const out = precompile({ ...this.env.precompileContext, data: message.data, gasLimit: BigInt(message.gas) }) as {
      executionGasUsed: bigint;
      returnValue: Uint8Array;
      exceptionError?: { error: string };
    };
    if (out instanceof Promise) throw new Unsupported('asynchronous precompile');
    if (out.exceptionError !== undefined) return { error: out.exceptionError.error, gasLeft: 0, output: EMPTY };
    return { error: undefined, gasLeft: message.gas - Number(out.executionGasUsed), output: out.returnValue };
  }

  private *create(message: Message): Execution {
    const world = this.world;
    const checkpoint = world.checkpoint();
    const refund = world.refund;
    world.warmAddress(message.address);
    if (message.transfer) {
      const from = world.get(message.caller);
      world.setBalance(from, from.balance - message.value);
    }
    const target = world.get(message.address);
    const fail = (error: string, returned = false, refusedPrefix = false): MessageResult => {
      world.revert(checkpoint);
      world.refund = refund;
      const failed: MessageResult = { error, gasLeft: 0, output: EMPTY };
      if (returned && this.hooks) failed.halt = refusedPrefix ? { returned, refusedPrefix } : { returned };
      return failed;
    };
    if (target.nonce > 0n || !world.isEmptyCode(target) || target.baseStorage) return fail(Errors.CREATE_COLLISION);
    world.markCreated(target);
    world.setNonce(target, target.nonce + 1n);
    world.setBalance(target, target.balance + message.value);
    const initCode = message.initCode!;
    if (initCode.length === 0) {
      const empty: MessageResult = { error: undefined, gasLeft: message.gas, output: EMPTY };
      if (this.trackGasNeed) empty.gasNeed = 0;
      return empty;
    }
    const result = yield* this.run(message, initCode);
    if (result.error === undefined) {
      const code = result.output;
      if (code.length > MAX_CODE) return fail(Errors.CODESIZE, true);
      const deposit = code.length * 200;
      // ethereumjs's order (the deposit's gas, then the 0xEF prefix); the recorder reports geth's.
      if (deposit > result.gasLeft) return fail(Errors.OUT_OF_GAS, true, code[0] === 0xef);
      if (code[0] === 0xef) return fail(Errors.INVALID_BYTECODE, true);
      world.setCode(target, code);
      const created: MessageResult = { error: undefined, gasLeft: result.gasLeft - deposit, output: code };
      // The deposit is charged after the init code ran, from what it left.
      if (this.trackGasNeed) created.gasNeed = Math.max(result.gasNeed ?? 0, message.gas - created.gasLeft);
      return created;
    }
    // ethereumjs turns a reverted create whose revert data starts with 0xef into an invalid-code
    // halt that takes all gas; geth does not. Leave that case to ethereumjs.
    if (result.error === Errors.REVERT && result.output[0] === 0xef) throw new Unsupported('reverted create with 0xef data');
    world.revert(checkpoint);
    world.refund = refund;
    return result;
  }

  /** The opcode loop of one frame. */
  private *run(message: Message, code: Uint8Array): Execution {
    const world = this.world;
    const env = this.env;
    const self = world.get(message.address);
    const dests = jumpDests(code);
    // Tables and constants of the hot cases in locals: a module binding is a context load at each use
    // (and an imported one is also checked for its temporal dead zone).
    const plainTable = PLAIN;
    const m256 = M256;
    const two256 = TWO256;
    const stack: bigint[] = [];
    const mem = new Memory();
    let returnData: Uint8Array = EMPTY;
    let gas = message.gas;
    // With trackGasNeed: the least gas this frame must start with to take the path it takes.
    const trackNeed = this.trackGasNeed;
    let gasNeed = 0;
    let pc = 0;
    const codeLength = code.length;
    const isStatic = message.isStatic;
    const hooks = this.hooks;
    const touches = hooks?.touches;
    // ethereumjs analyses jumps at the frame's first JUMP, JUMPI or MCOPY; from then on its run state
    // names an undefined opcode INVALID (0xfe), which the recorder's frame error keeps.
    let analysed = false;
    // Steps (only when recorded): the opcode being reported, snapshotted at the top of the loop and
    // reported when its cost is known (see StepHooks). `storeEnd` is how far ethereumjs's memory
    // store reaches: its step event shows memory cut at its store's length, and a CALL's output area
    // grows the memory size without growing the store unless return data is written there.
    const stepHooks = hooks?.steps;
    let stepPc = -1;
    let stepOp = -1;
    let stepGas = 0;
    let stepStack: bigint[] = [];
    let stepMemory: Uint8Array | undefined;
    let stepWords = 0;
    let storeEnd = 0;
    const reportStep = (childGas?: number, cost = stepGas - gas): void => {
      const at = stepPc;
      stepPc = -1;
      stepHooks!.step(at, code[at]!, stepGas, cost, message, world.refund, stepStack, stepMemory, childGas);
    };
    const memorySnapshot = (): Uint8Array => {
      const store = storeEnd <= STORE_CHUNK ? STORE_CHUNK : Math.ceil(storeEnd / STORE_CHUNK) * STORE_CHUNK;
      const out = new Uint8Array(Math.min(mem.words * 32, store));
      out.set(mem.buf.subarray(0, Math.min(out.length, mem.buf.length)));
      return out;
    };

    const num = (value: bigint): number => (value > 0xffffffffn ? 0xffffffff : Number(value));
    const accessCost = (address: bigint): number => (world.warmAddress(address) ? 2600 : 100);
    const copyToMemory = (memOffset: bigint, source: Uint8Array, sourceOffset: bigint, length: bigint): void => {
      if (length === 0n) return;
      mem.ensure();
      const dst = Number(memOffset);
      const len = Number(length);
      const start = sourceOffset > BigInt(source.length) ? source.length : Number(sourceOffset);
      const avail = Math.min(len, source.length - start);
      if (avail > 0) mem.buf.set(source.subarray(start, start + avail), dst);
      if (avail < len) mem.buf.fill(0, dst + Math.max(avail, 0), dst + len);
    };
    // EXTCODESIZE and EXTCODECOPY see a delegated account's designator itself (EIP-7702).
    const externalCode = (address: bigint): Uint8Array => world.code(world.get(address));

    try {
      while (pc < codeLength) {
        const op = code[pc]!;
        if (stepHooks !== undefined) {
          if (stepPc >= 0) reportStep();
          // Every memory growth but a CALL's output area (handled there) comes with a store write or read.
          if (mem.words !== stepWords) storeEnd = (stepWords = mem.words) * 32;
          stepMemory = stepHooks.memory || (stepHooks.memoryAfterWrites && stepOp >= 0 && WRITES_MEMORY[stepOp] === 1) ? memorySnapshot() : undefined;
          stepPc = pc;
          stepOp = op;
          stepGas = gas;
          stepStack = stack.slice();
        }
        // The checks of the plain opcodes (plainOpcodes.ts), once from one packed table rather than in each case.
        const plain = plainTable[op]!;
        if (plain !== 0) {
          const fee = plain & 0xff;
          if (fee > gas || stack.length < ((plain >> 8) & 0xff)) {
            // ethereumjs analyses the jumps before it charges a JUMP or JUMPI (see `analysed`).
            if (op === 0x56 || op === 0x57) analysed = true;
            if (fee > gas) throw new Halt(Errors.OUT_OF_GAS, EMPTY, fee);
            throw new Halt(Errors.STACK_UNDERFLOW);
          }
          gas -= fee;
          if (stack.length > plain >> 16) throw new Halt(Errors.STACK_OVERFLOW);
        }
        // PUSH1..PUSH32 first: the most frequent opcodes.
        if (op >= 0x60 && op <= 0x7f) {
          const n = op - 0x5f;
          stack.push(n <= 6 && pc + n < codeLength ? bytesToSmall(code, pc + 1, n) : bytesToWord(code, pc + 1, n));
          pc += n + 1;
          continue;
        }
        if (op >= 0x80 && op <= 0x8f) {
          stack.push(stack[stack.length - (op - 0x7f)]!);
          pc++;
          continue;
        }
        if (op >= 0x90 && op <= 0x9f) {
          const n = op - 0x8f;
          const top = stack.length - 1;
          const tmp = stack[top]!;
          stack[top] = stack[top - n]!;
          stack[top - n] = tmp;
          pc++;
          continue;
        }
        switch (op) {
          case 0x00:
            throw new Halt(undefined);
          case 0x01: {
            const a = stack.pop()!;
            // Reduced only when past 2^256 (a comparison does not allocate; a mask would). Written out here,
            // not as helpers: the helpers used the inlining budget that keccak256Word needs.
            const sum = a + stack[stack.length - 1]!;
            stack[stack.length - 1] = sum > m256 ? sum - two256 : sum;
            break;
          }
          case 0x02: {
            const a = stack.pop()!;
            const product = a * stack[stack.length - 1]!;
            stack[stack.length - 1] = product > m256 ? product & m256 : product;
            break;
          }
          case 0x03: {
            const a = stack.pop()!;
            const difference = a - stack[stack.length - 1]!;
            stack[stack.length - 1] = difference < 0n ? difference + two256 : difference;
            break;
          }
          case 0x04: {
            const a = stack.pop()!;
            const b = stack[stack.length - 1]!;
            stack[stack.length - 1] = b === 0n ? 0n : a / b;
            break;
          }
          case 0x05: {
            const a = toSigned(stack.pop()!);
            const b = toSigned(stack[stack.length - 1]!);
            stack[stack.length - 1] = b === 0n ? 0n : (a / b) & M256;
            break;
          }
          case 0x06: {
            const a = stack.pop()!;
            const b = stack[stack.length - 1]!;
            stack[stack.length - 1] = b === 0n ? 0n : a % b;
            break;
          }
          case 0x07: {
            const a = toSigned(stack.pop()!);
            const b = toSigned(stack[stack.length - 1]!);
            stack[stack.length - 1] = b === 0n ? 0n : (a % b) & M256;
            break;
          }
          case 0x08: {
            const a = stack.pop()!;
            const b = stack.pop()!;
            const n = stack[stack.length - 1]!;
            stack[stack.length - 1] = n === 0n ? 0n : (a + b) % n;
            break;
          }
          case 0x09: {
            const a = stack.pop()!;
            const b = stack.pop()!;
            const n = stack[stack.length - 1]!;
            stack[stack.length - 1] = n === 0n ? 0n : (a * b) % n;
            break;
          }
          case 0x0a: {
            need(stack, 2);
            const e = stack[stack.length - 2]!;
            gas = charge(gas, 10 + (e === 0n ? 0 : 50 * Math.ceil(e.toString(2).length / 8)));
            const base = stack.pop()!;
            stack[stack.length - 1] = exp(base, e);
            break;
          }
          case 0x0b: {
            const k = stack.pop()!;
            const x = stack[stack.length - 1]!;
            if (k < 31n) {
              const bit = k * 8n + 7n;
              const mask = (1n << bit) - 1n;
              stack[stack.length - 1] = (x >> bit) & 1n ? (x | ~mask) & M256 : x & mask;
            }
            break;
          }
          case 0x10:
          case 0x11:
          case 0x12:
          case 0x13:
          case 0x14: {
            const a = stack.pop()!;
            const b = stack[stack.length - 1]!;
            let r: boolean;
            if (op === 0x10) r = a < b;
            else if (op === 0x11) r = a > b;
            else if (op === 0x12) r = toSigned(a) < toSigned(b);
            else if (op === 0x13) r = toSigned(a) > toSigned(b);
            else r = a === b;
            stack[stack.length - 1] = r ? 1n : 0n;
            break;
          }
          case 0x15:
            stack[stack.length - 1] = stack[stack.length - 1] === 0n ? 1n : 0n;
            break;
          case 0x16: {
            const a = stack.pop()!;
            stack[stack.length - 1] = a & stack[stack.length - 1]!;
            break;
          }
          case 0x17: {
            const a = stack.pop()!;
            stack[stack.length - 1] = a | stack[stack.length - 1]!;
            break;
          }
          case 0x18: {
            const a = stack.pop()!;
            stack[stack.length - 1] = a ^ stack[stack.length - 1]!;
            break;
          }
          case 0x19:
            stack[stack.length - 1] = M256 ^ stack[stack.length - 1]!;
            break;
          case 0x1a: {
            const i = stack.pop()!;
            const x = stack[stack.length - 1]!;
            stack[stack.length - 1] = i < 32n ? (x >> (248n - i * 8n)) & 0xffn : 0n;
            break;
          }
          case 0x1b: {
            const s = stack.pop()!;
            const x = stack[stack.length - 1]!;
            stack[stack.length - 1] = s >= 256n ? 0n : (x << s) & M256;
            break;
          }
          case 0x1c: {
            const s = stack.pop()!;
            const x = stack[stack.length - 1]!;
            stack[stack.length - 1] = s >= 256n ? 0n : x >> s;
            break;
          }
          case 0x1d: {
            const s = stack.pop()!;
            const x = toSigned(stack[stack.length - 1]!);
            stack[stack.length - 1] = s >= 256n ? (x < 0n ? M256 : 0n) : (x >> s) & M256;
            break;
          }
          case 0x20: {
            need(stack, 2);
            const offset = stack[stack.length - 1]!;
            const length = stack[stack.length - 2]!;
            // As doubles, converted once (see Memory.expandAt).
            const at = Number(offset);
            const size = Number(length);
            gas = charge(gas, 30 + mem.expandAt(at, size) + 6 * Math.ceil(Math.min(size, 0xffffffff) / 32));
            stack.pop();
            mem.ensure();
            // Paid for: below 4 GiB, or a length of 0 (then nothing is read).
            stack[stack.length - 1] = keccak256Word(mem.buf, size === 0 ? 0 : at, size, mem.data);
            break;
          }
          case 0x30:
            stack.push(message.address);
            break;
          case 0x31: {
            need(stack, 1);
            const address = stack[stack.length - 1]! & ADDR;
            if (world.accountMiss(address, false) !== undefined) yield* accountLoads(world, address, false);
            gas = charge(gas, accessCost(address));
            touches?.account(address);
            stack[stack.length - 1] = world.get(address).balance;
            break;
          }
          case 0x32:
            stack.push(env.origin);
            break;
          case 0x33:
            stack.push(message.caller);
            break;
          case 0x34:
            stack.push(message.value);
            break;
          case 0x35: {
            const i = stack[stack.length - 1]!;
            stack[stack.length - 1] = i >= BigInt(message.data.length) ? 0n : bytesToWord(message.data, Number(i), 32);
            break;
          }
          case 0x36:
            stack.push(BigInt(message.data.length));
            break;
          case 0x37:
          case 0x39:
          case 0x3e: {
            need(stack, 3);
            const memOffset = stack[stack.length - 1]!;
            const sourceOffset = stack[stack.length - 2]!;
            const length = stack[stack.length - 3]!;
            const source = op === 0x37 ? message.data : op === 0x39 ? code : returnData;
            if (op === 0x3e && sourceOffset + length > BigInt(returnData.length)) throw new Halt(Errors.OUT_OF_GAS);
            gas = charge(gas, 3 + mem.expand(memOffset, length) + 3 * Math.ceil(num(length) / 32));
            stack.length -= 3;
            copyToMemory(memOffset, source, sourceOffset, length);
            break;
          }
          case 0x38:
            stack.push(BigInt(codeLength));
            break;
          case 0x3a:
            stack.push(env.gasPrice);
            break;
          case 0x3b: {
            need(stack, 1);
            const address = stack[stack.length - 1]! & ADDR;
            if (world.accountMiss(address, true) !== undefined) yield* accountLoads(world, address, true);
            gas = charge(gas, accessCost(address));
            touches?.account(address);
            stack[stack.length - 1] = BigInt(externalCode(address).length);
            break;
          }
          case 0x3c: {
            need(stack, 4);
            const address = stack[stack.length - 1]! & ADDR;
            const memOffset = stack[stack.length - 2]!;
            const sourceOffset = stack[stack.length - 3]!;
            const length = stack[stack.length - 4]!;
            if (world.accountMiss(address, true) !== undefined) yield* accountLoads(world, address, true);
            const memGas = mem.expand(memOffset, length);
            gas = charge(gas, memGas + accessCost(address) + 3 * Math.ceil(num(length) / 32));
            touches?.account(address);
            stack.length -= 4;
            copyToMemory(memOffset, length === 0n ? EMPTY : externalCode(address), sourceOffset, length);
            break;
          }
          case 0x3d:
            stack.push(BigInt(returnData.length));
            break;
          case 0x3f: {
            need(stack, 1);
            const address = stack[stack.length - 1]! & ADDR;
            if (world.accountMiss(address, true) !== undefined) yield* accountLoads(world, address, true);
            gas = charge(gas, accessCost(address));
            touches?.account(address);
            const account = world.get(address);
            if (world.isEmpty(account)) stack[stack.length - 1] = 0n;
            else stack[stack.length - 1] = bytesToBig(world.codeHash(account));
            break;
          }
          case 0x40:
            throw new Unsupported('BLOCKHASH');
          case 0x41:
            stack.push(env.coinbase);
            break;
          case 0x42:
            stack.push(env.timestamp);
            break;
          case 0x43:
            stack.push(env.number);
            break;
          case 0x44:
            stack.push(env.prevRandao);
            break;
          case 0x45:
            stack.push(env.gasLimit);
            break;
          case 0x46:
            stack.push(env.chainId);
            break;
          case 0x47:
            stack.push(self.balance);
            break;
          case 0x48:
            stack.push(env.baseFee);
            break;
          case 0x49:
            // BLOBHASH: calls carry no blobs.
            stack[stack.length - 1] = 0n;
            break;
          case 0x4a:
            stack.push(env.blobBaseFee);
            break;
          case 0x50:
            stack.pop();
            break;
          case 0x51: {
            need(stack, 1);
            const at = Number(stack[stack.length - 1]!);
            gas = charge(gas, 3 + mem.expandAt(at, 32));
            stack[stack.length - 1] = mem.loadWord(at);
            break;
          }
          case 0x52: {
            need(stack, 1);
            const at = Number(stack[stack.length - 1]!);
            gas = charge(gas, 3 + mem.expandAt(at, 32));
            need(stack, 2);
            stack.pop();
            mem.storeWord(at, stack.pop()!);
            break;
          }
          case 0x53: {
            need(stack, 1);
            const at = Number(stack[stack.length - 1]!);
            gas = charge(gas, 3 + mem.expandAt(at, 1));
            need(stack, 2);
            stack.pop();
            mem.ensure();
            mem.buf[at] = Number(stack.pop()! & 0xffn);
            break;
          }
          case 0x54: {
            need(stack, 1);
            const slot = stack[stack.length - 1]!;
            const miss = world.storageMiss(self, slot);
            if (miss !== undefined) yield miss;
            gas = charge(gas, world.warmSlot(self, slot) ? 2100 : 100);
            touches?.slot(message.address, slot, undefined);
            stack[stack.length - 1] = world.sload(self, slot);
            break;
          }
          case 0x55: {
            if (isStatic) throw new Halt(Errors.STATIC);
            need(stack, 2);
            const slot = stack[stack.length - 1]!;
            const value = stack[stack.length - 2]!;
            // EIP-2200: SSTORE needs more than the call stipend left.
            if (trackNeed) gasNeed = Math.max(gasNeed, message.gas - gas + 2301);
            if (gas <= 2300) throw new Halt(Errors.OUT_OF_GAS);
            const miss = world.storageMiss(self, slot);
            if (miss !== undefined) yield miss;
            const current = world.sload(self, slot);
            const original = world.originalValue(self, slot);
            let cost = world.warmSlot(self, slot) ? 2100 : 0;
            if (current === value) cost += 100;
            else if (original === current) {
              if (original === 0n) cost += 20000;
              else {
                cost += 2900;
                if (value === 0n) world.refund += 4800;
              }
            } else {
              cost += 100;
              if (original !== 0n) {
                if (current === 0n) world.refund -= 4800;
                else if (value === 0n) world.refund += 4800;
              }
              if (original === value) world.refund += original === 0n ? 19900 : 2800;
            }
            gas = charge(gas, cost);
            touches?.slot(message.address, slot, { value, current });
            stack.length -= 2;
            world.sstore(self, slot, value);
            break;
          }
          case 0x56: {
            analysed = true;
            if (++this.jumps % CHECK_EVERY_JUMPS === 0) yield* this.checkpoint();
            // A double: exact below 2^53, and a word past the code stays past it.
            const dest = Number(stack.pop()!);
            if (dest >= codeLength || dests[dest] !== 1) throw new Halt(invalidJump(code, message.address, pc));
            pc = dest;
            continue;
          }
          case 0x57: {
            analysed = true;
            if (++this.jumps % CHECK_EVERY_JUMPS === 0) yield* this.checkpoint();
            const dest = stack.pop()!;
            const cond = stack.pop()!;
            if (cond !== 0n) {
              const target = Number(dest);
              if (target >= codeLength || dests[target] !== 1) throw new Halt(invalidJump(code, message.address, pc));
              pc = target;
              continue;
            }
            break;
          }
          case 0x58:
            stack.push(BigInt(pc));
            break;
          case 0x59:
            stack.push(BigInt(mem.words * 32));
            break;
          case 0x5a:
            stack.push(BigInt(gas));
            break;
          case 0x5b:
            break;
          case 0x5c:
            stack[stack.length - 1] = world.tload(self, stack[stack.length - 1]!);
            break;
          case 0x5d: {
            gas = charge(gas, 100);
            if (isStatic) throw new Halt(Errors.STATIC);
            need(stack, 2);
            const slot = stack.pop()!;
            world.tstore(self, slot, stack.pop()!);
            break;
          }
          case 0x5e: {
            analysed = true;
            need(stack, 3);
            const dst = stack[stack.length - 1]!;
            const src = stack[stack.length - 2]!;
            const length = stack[stack.length - 3]!;
            gas = charge(gas, 3 + 3 * Math.ceil(num(length) / 32) + mem.expand(src, length) + mem.expand(dst, length));
            stack.length -= 3;
            if (length !== 0n) {
              mem.ensure();
              mem.buf.copyWithin(Number(dst), Number(src), Number(src) + Number(length));
            }
            break;
          }
          case 0x5f:
            stack.push(0n);
            break;
          case 0xa0:
          case 0xa1:
          case 0xa2:
          case 0xa3:
          case 0xa4: {
            if (isStatic) throw new Halt(Errors.STATIC);
            need(stack, 2);
            const offset = stack[stack.length - 1]!;
            const length = stack[stack.length - 2]!;
            const topics = op - 0xa0;
            gas = charge(gas, 375 + 375 * topics + mem.expand(offset, length) + 8 * num(length));
            need(stack, 2 + topics);
            stack.length -= 2;
            const t: bigint[] = [];
            for (let i = 0; i < topics; i++) t.push(stack.pop()!);
            const data = mem.read(Number(offset & 0xffffffffn), Number(length & 0xffffffffn));
            world.addLog({ address: message.address, topics: t, data });
            hooks?.log?.(message.address, t, data);
            break;
          }
          case 0xf0:
          case 0xf5: {
            const isCreate2 = op === 0xf5;
            need(stack, isCreate2 ? 4 : 3);
            if (isStatic) throw new Halt(Errors.STATIC);
            const value = stack[stack.length - 1]!;
            const offset = stack[stack.length - 2]!;
            const length = stack[stack.length - 3]!;
            const words = Math.ceil(num(length) / 32);
            gas = charge(gas, 32000 + mem.expand(offset, length) + 2 * words + (isCreate2 ? 6 * words : 0));
            const gasAfterCost = gas;
            const childGas = gas - Math.floor(gas / 64);
            if (stepHooks !== undefined) reportStep(childGas);
            stack.length -= 3;
            const salt = isCreate2 ? stack.pop()! : 0n;
            if (length > BigInt(MAX_INITCODE)) throw new Halt(Errors.INITCODE_SIZE);
            const initCode = mem.read(Number(offset & 0xffffffffn), Number(length));
            if (initCode.length >= 2 && initCode[0] === 0xef && initCode[1] === 0x00) throw new Unsupported('EOF init code');
            returnData = EMPTY;
            const selfBytes = addressBytes(message.address);
            const newAddress = (): bigint =>
              bytesToBig(isCreate2 ? generateAddress2(selfBytes, setLengthLeft(bigIntToBytes(salt), 32), initCode) : generateAddress(selfBytes, bigIntToBytes(self.nonce)));
            const seen = touches === undefined ? undefined : newAddress();
            if (seen !== undefined) touches!.created(seen);
            if (message.depth >= DEPTH_LIMIT || self.balance < value || self.nonce >= TWO64M1) {
              hooks?.notStarted?.({
                kind: isCreate2 ? 'CREATE2' : 'CREATE',
                from: message.address,
                target: undefined,
                value,
                gas: childGas,
                requestedGas: childGas,
                input: initCode,
                depth: message.depth + 1,
                reason: message.depth >= DEPTH_LIMIT ? 'callDepthExceeded' : self.balance < value ? 'insufficientBalance' : 'nonceOverflow',
              });
              push(stack, 0n);
              break;
            }
            const address = seen ?? newAddress();
            world.setNonce(self, self.nonce + 1n);
            gas -= childGas;
            const result = yield* this.execute({
              kind: isCreate2 ? 'CREATE2' : 'CREATE',
              caller: message.address,
              address,
              codeAddress: address,
              value,
              transfer: true,
              data: EMPTY,
              initCode,
              gas: childGas,
              depth: message.depth + 1,
              isStatic: false,
              requestedGas: childGas,
            });
            gas += result.gasLeft;
            if (trackNeed) gasNeed = Math.max(gasNeed, this.needForChild(message.gas, gasAfterCost, result, 0));
            returnData = result.error === Errors.REVERT ? result.output : EMPTY;
            push(stack, result.error === undefined ? address : 0n);
            break;
          }
          case 0xf1:
          case 0xf2:
          case 0xf4:
          case 0xfa: {
            const hasValue = op === 0xf1 || op === 0xf2;
            need(stack, hasValue ? 7 : 6);
            const top = stack.length - 1;
            const gasArg = stack[top]!;
            const to = stack[top - 1]! & ADDR;
            const value = hasValue ? stack[top - 2]! : 0n;
            const k = hasValue ? 3 : 2;
            const inOffset = stack[top - k]!;
            const inLength = stack[top - k - 1]!;
            const outOffset = stack[top - k - 2]!;
            const outLength = stack[top - k - 3]!;
            if (op === 0xf1 && isStatic && value !== 0n) throw new Halt(Errors.STATIC);
            // The callee's account and code, loaded before anything changes (a precompile has no code to read).
            if (world.accountMiss(to, !env.precompiles.has(to)) !== undefined) yield* accountLoads(world, to, !env.precompiles.has(to));
            let cost = mem.expand(inOffset, inLength);
            cost += mem.expand(outOffset, outLength);
            cost += accessCost(to);
            if (value !== 0n) cost += 9000;
            if (op === 0xf1 && value !== 0n && world.isEmpty(world.get(to))) cost += 25000;
            let delegate: bigint | undefined;
            if (!env.precompiles.has(to)) {
              const toCode = world.code(world.get(to));
              if (env.delegation && isDelegation(toCode)) {
                // EIP-7702: the delegate's access, after the callee's (ethereumjs's order), and its code loaded.
                delegate = delegateOf(toCode);
                if (world.accountMiss(delegate, !env.precompiles.has(delegate)) !== undefined) yield* accountLoads(world, delegate, !env.precompiles.has(delegate));
                cost += accessCost(delegate);
              }
            }
            gas = charge(gas, cost);
            const gasAfterCost = gas;
            touches?.account(to);
            if (delegate !== undefined) touches?.account(delegate);
            const allowed = gas - Math.floor(gas / 64);
            let childGas = gasArg < BigInt(allowed) ? Number(gasArg) : allowed;
            const requestedGas = childGas;
            if (stepHooks !== undefined) {
              reportStep(requestedGas);
              stepWords = mem.words;
              if (inLength !== 0n) storeEnd = Math.max(storeEnd, Math.ceil(Number(inOffset + inLength) / 32) * 32);
            }
            stack.length -= hasValue ? 7 : 6;
            const data = mem.read(Number(inOffset & 0xffffffffn), num(inLength));
            gas -= childGas;
            if (value !== 0n) childGas += 2300;
            returnData = EMPTY;
            if (message.depth >= DEPTH_LIMIT || (hasValue && self.balance < value)) {
              gas += childGas;
              hooks?.notStarted?.({
                kind: op === 0xf1 ? 'CALL' : op === 0xf2 ? 'CALLCODE' : op === 0xf4 ? 'DELEGATECALL' : 'STATICCALL',
                from: message.address,
                target: to,
                value: op === 0xf4 ? message.value : value,
                gas: childGas,
                requestedGas,
                input: data,
                depth: message.depth + 1,
                reason: message.depth >= DEPTH_LIMIT ? 'callDepthExceeded' : 'insufficientBalance',
              });
              push(stack, 0n);
              break;
            }
            const result = yield* this.execute({
              kind: op === 0xf1 ? 'CALL' : op === 0xf2 ? 'CALLCODE' : op === 0xf4 ? 'DELEGATECALL' : 'STATICCALL',
              caller: op === 0xf4 ? message.caller : message.address,
              address: op === 0xf1 || op === 0xfa ? to : message.address,
              codeAddress: to,
              value: op === 0xf4 ? message.value : value,
              transfer: hasValue,
              data,
              gas: childGas,
              depth: message.depth + 1,
              isStatic: isStatic || op === 0xfa,
              requestedGas,
            });
            gas += result.gasLeft;
            if (trackNeed) gasNeed = Math.max(gasNeed, this.needForChild(message.gas, gasAfterCost, result, value !== 0n ? 2300 : 0));
            returnData = result.error === undefined || result.error === Errors.REVERT ? result.output : EMPTY;
            if (outLength !== 0n && returnData.length > 0) {
              mem.ensure();
              const n = Math.min(returnData.length, Number(outLength));
              mem.buf.set(returnData.subarray(0, n), Number(outOffset));
              if (stepHooks !== undefined) storeEnd = Math.max(storeEnd, Math.ceil((Number(outOffset) + n) / 32) * 32);
            }
            push(stack, result.error === undefined ? 1n : 0n);
            break;
          }
          case 0xf3:
          case 0xfd: {
            need(stack, 2);
            const offset = stack[stack.length - 1]!;
            const length = stack[stack.length - 2]!;
            gas = charge(gas, mem.expand(offset, length));
            const output = mem.read(Number(offset & 0xffffffffn), Number(length & 0xffffffffn));
            throw new Halt(op === 0xf3 ? undefined : Errors.REVERT, output);
          }
          case 0xff: {
            if (isStatic) throw new Halt(Errors.STATIC);
            need(stack, 1);
            const beneficiary = stack[stack.length - 1]! & ADDR;
            const balance = self.balance;
            let cost = 5000;
            if (balance > 0n && world.isEmpty(world.get(beneficiary))) cost += 25000;
            if (world.warmAddress(beneficiary)) cost += 2600;
            gas = charge(gas, cost);
            touches?.account(beneficiary);
            hooks?.selfDestruct?.(message.address, beneficiary, balance);
            stack.pop();
            const toSelf = beneficiary === message.address;
            if (!toSelf) {
              const target = world.get(beneficiary);
              world.setBalance(target, target.balance + balance);
            }
            if (toSelf ? world.created.has(message.address) : true) world.setBalance(self, 0n);
            world.markDestructed(message.address);
            throw new Halt(undefined);
          }
          case 0x1e:
            // CLZ from Osaka; undefined before it, as the default case.
            if (!env.clz) throw new Halt(Errors.INVALID_OPCODE);
            gas = charge(gas, 5);
            need(stack, 1);
            stack[stack.length - 1] = BigInt(leadingZeros(stack[stack.length - 1]!));
            break;
          default:
            throw new Halt(Errors.INVALID_OPCODE);
        }
        pc++;
      }
      if (stepHooks !== undefined) {
        if (stepPc >= 0) reportStep();
        stepHooks.codeEnd(gas, stack, mem.buf);
      }
      const ended: MessageResult = { error: undefined, gasLeft: gas, output: EMPTY };
      if (trackNeed) ended.gasNeed = Math.max(gasNeed, message.gas - gas);
      return ended;
    } catch (error) {
      if (!(error instanceof Halt)) throw error;
      // ethereumjs's step event for REVERT reads its two stack words first: with fewer it emits no
      // step, and the recorder puts the halt on the frame's step before.
      if (stepPc >= 0 && code[stepPc] === 0xfd && error.error === Errors.STACK_UNDERFLOW) stepPc = -1;
      if (stepPc >= 0) {
        const exceptional = error.error !== undefined && error.error !== Errors.REVERT;
        reportStep(undefined, exceptional ? haltingStepCost(stepHooks!, code[stepPc]!, stepGas - gas, error.failedCharge) : stepGas - gas);
      }
      stepHooks?.codeEnd(gas, stack, mem.buf);
      if (error.error === undefined || error.error === Errors.REVERT) {
        const ended: MessageResult = { error: error.error, gasLeft: gas, output: error.output };
        if (trackNeed) ended.gasNeed = Math.max(gasNeed, message.gas - gas);
        return ended;
      }
      if (trackNeed) this.gasNeedKnown = false;
      const halted: MessageResult = { error: error.error, gasLeft: 0, output: EMPTY };
      if (hooks) halted.halt = { op: code[pc], stack: stack.slice(), gasLeft: gas, returnDataLength: returnData.length, analysed };
      return halted;
    }
  }
}

/** ethereumjs's text for a bad jump names the code hash, the address and the pc. */
function invalidJump(code: Uint8Array, address: bigint, pc: number): string {
  return `${Errors.INVALID_JUMP} at ${bytesToHex(keccak256(code))}/0x${address.toString(16).padStart(40, '0')}:${pc}`;
}

export type { Account };
