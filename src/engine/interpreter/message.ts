// The interpreter's vocabulary: a message (call or create) in, its result out, the block and
// transaction context it runs in, the frame hooks, and ethereumjs's error texts it reproduces.
import type { PrecompileInput } from '@ethereumjs/evm';
import type { WorldState } from './worldState.js';

/** ethereumjs's error texts (EVMError.errorMessages), which callers map to geth's. */
export const Errors = {
  OUT_OF_GAS: 'out of gas',
  STACK_UNDERFLOW: 'stack underflow',
  STACK_OVERFLOW: 'stack overflow',
  INVALID_JUMP: 'invalid JUMP',
  INVALID_OPCODE: 'invalid opcode',
  REVERT: 'revert',
  STATIC: 'static state change',
  CREATE_COLLISION: 'create collision',
  CODESIZE: 'code size to deposit exceeds maximum code size',
  INVALID_BYTECODE: 'invalid bytecode deployed',
  INITCODE_SIZE: 'initcode exceeds max initcode size',
} as const;

/** A precompile from ethereumjs, called synchronously. */
export type SyncPrecompile = (input: PrecompileInput) => unknown;

/** Block and transaction context of an execution. */
export interface ExecutionEnv {
  origin: bigint;
  gasPrice: bigint;
  coinbase: bigint;
  timestamp: bigint;
  number: bigint;
  prevRandao: bigint;
  gasLimit: bigint;
  chainId: bigint;
  baseFee: bigint;
  blobBaseFee: bigint;
  /** Whether CLZ (0x1e, EIP-7939, Osaka) is an opcode; before it 0x1e is undefined. */
  clz: boolean;
  /** EIP-7702 is active (Prague on): code that is a designator (0xef0100 ‖ address) runs its delegate's code. */
  delegation: boolean;
  /** Active precompiles by address; only 0x01–0x09 run here (they are synchronous). */
  precompiles: Map<bigint, SyncPrecompile>;
  /** What ethereumjs's precompiles read besides the data (common, _EVM). */
  precompileContext: Omit<PrecompileInput, 'data' | 'gasLimit'>;
}

export type MessageKind = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2';

export interface Message {
  kind: MessageKind;
  caller: bigint;
  /** The account whose storage and balance the frame runs against. */
  address: bigint;
  /** Whose code runs (the callee for CALL/STATICCALL, the target for CALLCODE/DELEGATECALL). */
  codeAddress: bigint;
  value: bigint;
  /** Value moves from caller to address (CALL, CALLCODE, creates). */
  transfer: boolean;
  data: Uint8Array;
  /** Init code of a create. */
  initCode?: Uint8Array;
  gas: number;
  depth: number;
  isStatic: boolean;
  /** Gas the opening CALL-or-CREATE asked to hand over, before the stipend (absent for the root). */
  requestedGas?: number;
}

export interface MessageResult {
  /** undefined on success; 'revert' or ethereumjs's halt text otherwise. */
  error: string | undefined;
  gasLeft: number;
  output: Uint8Array;
  /** Where an exceptional halt happened; filled only when hooks are attached (the recorder classifies it). */
  halt?: HaltFacts;
  /**
   * With InterpreterOptions.trackGasNeed, on success or revert: the least gas the message must be
   * given to take the same path (every charge paid, SSTORE's stipend check passed, each child given
   * what it needs under EIP-150's 63/64 rule).
   */
  gasNeed?: number;
}

/** The interpreter's state at an exceptional halt, for classifying it as geth does. */
export interface HaltFacts {
  /** The opcode that halted (undefined for halts around the code: a create's deposit). */
  op?: number;
  /** The stack when it halted, top last. */
  stack?: bigint[];
  /** Gas left before the halting opcode charged anything. */
  gasLeft?: number;
  returnDataLength?: number;
  /** A create's code ran to RETURN and the halt came after (its code deposit). */
  returned?: boolean;
  /** That code starts with 0xEF, which EIP-3541 refuses (geth's error, whatever the deposit's gas). */
  refusedPrefix?: boolean;
  /** The frame had reached a JUMP, JUMPI or MCOPY (ethereumjs's jump analysis had run). */
  analysed?: boolean;
}

/** A CALL-or-CREATE that failed its pre-checks, so no message ran (the recorder keeps it as a frame). */
export interface NotStartedCall {
  kind: MessageKind;
  /** The executing account of the frame that tried. */
  from: bigint;
  /** Callee or code address; undefined for creates. */
  target: bigint | undefined;
  value: bigint;
  /** Gas it would have handed over (the stipend included). */
  gas: number;
  requestedGas: number;
  input: Uint8Array;
  depth: number;
  reason: 'callDepthExceeded' | 'insufficientBalance' | 'nonceOverflow';
}

/** Accounts and slots an execution touches, by the recorder's prestate rules (after each opcode's gas). */
export interface TouchHooks {
  account(address: bigint): void;
  /** SLOAD, or SSTORE with the value written and the slot's value before it. */
  slot(address: bigint, slot: bigint, write: { value: bigint; current: bigint } | undefined): void;
  /** The address of a CREATE/CREATE2 (before its pre-checks). */
  created(address: bigint): void;
}

/** Optional observer of frames (the recorder's hook point); absent means no cost. */
export interface FrameHooks {
  /** A new run begins (the driver restarts an execution after loading state): forget the last one. */
  reset(): void;
  /** The run's state view exists, before the transaction buys its gas (the recorder reads pre-state from it). */
  begin?(world: WorldState): void;
  enter(message: Message): void;
  exit(message: Message, result: MessageResult): void;
  notStarted?(call: NotStartedCall): void;
  selfDestruct?(address: bigint, beneficiary: bigint, balance: bigint): void;
  log?(address: bigint, topics: bigint[], data: Uint8Array): void;
  /** Present only when state is recorded. */
  touches?: TouchHooks;
  /** Present only when opcode steps are recorded (struct logs, vmTrace). */
  steps?: StepHooks;
}

/**
 * Opcode steps as ethereumjs's `step` event reports them: before the opcode runs, with its whole
 * cost (static and dynamic, not the gas a CALL-or-CREATE hands its child). The interpreter charges
 * gas inline, so a step is reported once its cost is known: after an ordinary opcode, and for a
 * CALL-or-CREATE once its own gas is charged, before its child frame starts (or fails to start).
 */
export interface StepHooks {
  /** Copy memory into each step (its copy costs as much as ethereumjs's). */
  memory: boolean;
  /**
   * Copy memory into the step after an opcode that writes it (MLOAD counted, as OpenEthereum does):
   * vmTrace reads the window written from there. Other steps then carry no memory.
   */
  memoryAfterWrites: boolean;
  /** ethereumjs's static fee of each opcode: what its step reports when the gas handler fails. */
  fees: ArrayLike<number>;
  /**
   * One opcode: its pc, gas left before it and its cost; the stack (a copy, top last), memory (a
   * copy as long as ethereumjs's view of it, when asked) and the refund counter as ethereumjs's
   * step event shows them; `childGas` is what a CALL-or-CREATE asks to hand over (before the stipend).
   */
  step(pc: number, op: number, gasLeft: number, cost: number, message: Message, refund: number, stack: bigint[], memory: Uint8Array | undefined, childGas: number | undefined): void;
  /**
   * The frame's code stopped (after its last step; before a create's code deposit): gas left as
   * ethereumjs's run state has it, the stack and the memory (live, read before the next opcode runs).
   */
  codeEnd(gasLeft: number, stack: bigint[], memory: Uint8Array): void;
}
