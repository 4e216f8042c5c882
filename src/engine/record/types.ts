// The ExecutionRecord: what one recorded execution of a transaction or call left behind, as plain
// data (bytes, bigints, arrays, Maps), so it can cross a worker boundary and be rendered many times.
// It knows no output format; renderers in ../render turn it into geth or Parity JSON.

/** Kind of a call frame, named after the opcode that opened it (geth's `type`). */
export type FrameKind = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';

/**
 * Why a frame failed, independent of any client's wording. Renderers map these to geth texts
 * (`execution reverted`) or OpenEthereum texts (`Reverted`).
 */
export type FrameErrorKind =
  | 'revert'
  | 'outOfGas'
  /** Create ran out of gas paying for the code deposit (geth: "contract creation code storage out of gas"). */
  | 'codeStoreOutOfGas'
  | 'maxCodeSizeExceeded'
  /** SSTORE with no more than the 2300 stipend left (EIP-2200). */
  | 'reentrancySentry'
  | 'invalidJump'
  | 'invalidOpcode'
  | 'stackUnderflow'
  | 'stackOverflow'
  | 'writeProtection'
  | 'returnDataOutOfBounds'
  | 'precompileFailed'
  | 'insufficientBalance'
  | 'callDepthExceeded'
  | 'createCollision'
  | 'nonceOverflow'
  | 'initCodeSizeExceeded'
  | 'invalidCodePrefix'
  | 'other';

export interface FrameError {
  kind: FrameErrorKind;
  /** The opcode byte that failed, for `invalidOpcode` (geth names it: `opcode 0xd0 not defined`). */
  opcode?: number;
  /** ethereumjs's own text, kept for `other`. */
  message: string;
}

/** One call frame. Frames live in a flat arena; links are indices into {@link ExecutionRecord.frames}. */
export interface RecordedFrame {
  /** Index of the parent frame, -1 for the root. */
  parent: number;
  /** Child frames in execution order (SELFDESTRUCT and never-started frames included). */
  children: number[];
  /** 0 for the root. */
  depth: number;
  kind: FrameKind;
  /** The executing account of the parent frame (the tx sender for the root); geth's and Parity's `from`. */
  from: Uint8Array;
  /**
   * geth's `to`: the callee for CALL/STATICCALL, the code address for CALLCODE/DELEGATECALL, the
   * new contract for CREATE*, the beneficiary for SELFDESTRUCT. Undefined for a create whose
   * address was never computed.
   */
  to: Uint8Array | undefined;
  /** Address whose storage and balance the frame runs against (the new contract for creates). */
  contextAddress: Uint8Array | undefined;
  /** Value moved (for DELEGATECALL the parent's value, as geth and Parity show it). */
  value: bigint;
  /** Gas made available to the frame (the stipend included). */
  gas: bigint;
  /** Gas the frame consumed; all of `gas` on an exceptional halt. */
  gasUsed: bigint;
  /** Call data, or init code for creates. */
  input: Uint8Array;
  /** Return data on success, revert data on revert, empty on other errors. */
  output: Uint8Array;
  error: FrameError | undefined;
  /** A call into a precompile. */
  precompile: boolean;
  /**
   * False for a frame that never ran: a CALL-or-CREATE that failed its pre-checks (balance, depth)
   * and so produced no EVM message, and SELFDESTRUCT pseudo-frames.
   */
  started: boolean;
  /** Indices into {@link ExecutionRecord.logs} of the logs this frame emitted itself. */
  logs: number[];
  /** Gas the probe saw requested by the opcode before the stipend (vmTrace `cost`), when steps are recorded. */
  requestedGas?: bigint;
}

/** A log with where it happened. */
export interface RecordedLog {
  frame: number;
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
  /** How many child frames the emitting frame had opened before this log (geth's `position`). */
  position: number;
  /**
   * Index among the transaction's logs that were alive when it was emitted (a reverted frame
   * gives its indices back, as geth's state journal does). Add the block offset for `logIndex`.
   */
  indexInTx: number;
}

/** An account's fields at one moment. */
export interface AccountState {
  balance: bigint;
  nonce: bigint;
  code: Uint8Array;
  codeHash: Uint8Array;
}

/** One storage slot touched by the transaction, with its value before and after (32-byte words as bigint). */
export interface SlotRecord {
  pre: bigint;
  post: bigint | undefined;
  /** Some SSTORE wrote a value different from the slot's value at that moment. */
  dirty: boolean;
}

/** An account the transaction touched (by geth's prestate rules), with its state before and after. */
export interface TouchedAccount {
  address: Uint8Array;
  /** State at first touch (equal to the state before the transaction); undefined if absent. */
  pre: AccountState | undefined;
  /** State after the transaction; undefined if absent afterwards (never created or destroyed). */
  post: AccountState | undefined;
  /** Slots keyed by 0x-prefixed 64-digit lowercase hex. */
  storage: Map<string, SlotRecord>;
  /** Target of a CREATE/CREATE2 or of the creation transaction. */
  created: boolean;
}

/** One executed opcode, recorded only for step-level renderers (struct logs, vmTrace). */
export interface RecordedStep {
  frame: number;
  pc: number;
  op: number;
  /** Gas left before the opcode. */
  gas: bigint;
  /** Gas the opcode charged (static + dynamic, without gas handed to a child frame). */
  gasCost: bigint;
  /** 1-based like geth's struct logger. */
  depth: number;
  refund: bigint;
  stack?: bigint[];
  memory?: Uint8Array;
  returnData?: Uint8Array;
  /** SLOAD: the loaded value; SSTORE: the stored value (geth's per-step `storage` view). */
  storageWrite?: { key: bigint; value: bigint };
  /** Set when the opcode itself failed. */
  error?: FrameError;
  /** Filled for vmTrace: what the opcode left behind. Undefined if it halted exceptionally. */
  after?: StepEffect;
  /** Index of the child frame this opcode opened (CALL-or-CREATE), for vmTrace `sub`. */
  childFrame?: number;
  /** Gas a CALL-or-CREATE asked to hand to its child, before the stipend (geth adds it to CALL's cost). */
  childGas?: bigint;
}

/** What an opcode left behind (OpenEthereum's `VMExecutedOperation`). */
export interface StepEffect {
  /** Gas left after the opcode (and its child frame) finished. */
  gasLeft: bigint;
  /** Stack words pushed by the opcode, bottom first. */
  push: bigint[];
  mem: { offset: number; data: Uint8Array } | undefined;
  store: { key: bigint; value: bigint } | undefined;
}

/** Transaction-level facts renderers need. */
export interface RecordedTx {
  from: Uint8Array;
  /** Undefined for contract creation. */
  to: Uint8Array | undefined;
  value: bigint;
  gasLimit: bigint;
  /** Intrinsic gas (21000/53000 + calldata + access list + authorizations). */
  intrinsicGas: bigint;
  /** Gas used as the receipt reports it (after refunds). */
  gasUsed: bigint;
  /** Gas used by execution, before refunds, without intrinsic gas (Parity root `gasUsed`). */
  executionGasUsed: bigint;
  gasPrice: bigint;
  /** Return data of the top frame (revert data on revert). */
  output: Uint8Array;
  /** Error of the top frame, if any. */
  error: FrameError | undefined;
  /** Created contract address for creation transactions. */
  createdAddress: Uint8Array | undefined;
}

export interface ExecutionRecord {
  tx: RecordedTx;
  /** Frame arena; index 0 is the root frame. */
  frames: RecordedFrame[];
  logs: RecordedLog[];
  /** Present when state was recorded: keyed by 0x-prefixed lowercase address. */
  accounts: Map<string, TouchedAccount> | undefined;
  /** Present when steps were recorded. */
  steps: RecordedStep[] | undefined;
  /** Code run by each frame (init code for creates), only when steps were recorded. */
  frameCode: Uint8Array[] | undefined;
  /** Hard fork the execution ran under (ethereumjs name). */
  hardfork: string;
  /** Set when frame bounds of kind `drop` left some frames' input out: the record must not serve traces. */
  incomplete?: true;
}

/** What a set of renderers needs recorded. Pay only for what was asked. */
export interface RecordNeeds {
  /** Touched accounts and slots with pre/post values (prestateTracer, stateDiff). */
  state: boolean;
  /** Opcode steps (struct logger, vmTrace). */
  steps: StepNeeds | undefined;
  /** Bounds on the call data and return data the frames keep; absent = unbounded. */
  frames?: FrameBounds;
}

/**
 * A CALL can hand its callee the caller's whole memory for a few hundred gas, and every frame keeps
 * a copy of its input, so frames need a bound of their own: a loop of calls with 1 MiB of input
 * once meant gigabytes for a few million gas.
 */
export type FrameBounds =
  /** Traces: each frame's data (as hex, plus the frame's own fields) is charged to the job's budget; past it the execution stops with the cap's error. */
  | { kind: 'refuse'; budget: StepBudget; advice: Record<StepCapPassed, string> }
  /** The miner and the follower, which must go on: past `maxBytes` of call data in one record, frames keep no more input and the record is marked incomplete. */
  | { kind: 'drop'; maxBytes: number };

export interface StepNeeds {
  stack: boolean;
  memory: boolean;
  returnData: boolean;
  storage: boolean;
  /** Record what each opcode left behind (vmTrace). */
  effects: boolean;
  /** Stop recording steps after this many (0 = no limit); execution continues. */
  limit: number;
  /** Server-side bounds on what the steps may cost; absent = unbounded (tests, conformance runs). */
  bounds?: StepBounds;
}

/**
 * Weighs recorded steps in bytes of the output they will render to. One per output format (the
 * renderers know their formats, see render/outputWeights.ts) and per recording (it may keep state,
 * such as the struct logger's per-account storage view).
 */
export interface StepWeigher {
  /** A step as recorded (stack, memory, return data, storage view); `storageOwner` is the account SLOAD/SSTORE touch, as hex. */
  step(step: RecordedStep, storageOwner: string): number;
  /** What an opcode left behind (vmTrace `ex`). */
  effect(effect: StepEffect): number;
  /** A frame's code (vmTrace renders it). */
  frameCode(code: Uint8Array): number;
}

/** A job's step budget (shared by every recording of the job) and how its output is weighed. */
export interface StepBounds {
  budget: StepBudget;
  /** A fresh weigher for one recording (a transaction or call). */
  weigher(): StepWeigher;
  /** How the client can ask for less, for the refusal's message, by the cap passed. */
  advice: Record<StepCapPassed, string>;
}

/** Which cap a job passed. */
export type StepCapPassed = 'steps' | 'bytes';

/** Steps and output bytes one job may record; see record/stepBudget.ts. */
export interface StepBudget {
  readonly maxSteps: number;
  readonly maxBytes: number;
  /** Counts recorded steps and output bytes; returns the cap the job has passed, if any (and from then on). */
  charge(steps: number, bytes: number): StepCapPassed | undefined;
}
