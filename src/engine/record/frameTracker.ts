// Builds the frame arena from ethereumjs's message events plus the opcode probe: message events
// give every frame that ran; the probe supplies what messages cannot (which opcode opened a frame,
// calls that failed their pre-checks and never produced a message, SELFDESTRUCT, logs with their
// position among a frame's children). Under frame bounds it charges each frame's data as it keeps
// it, and past them refuses the execution (traces) or keeps no more input (miner, follower).
import type { EVMResult, Message } from '@ethereumjs/evm';
import { EVMError } from '@ethereumjs/evm';
import { type PairingGas, classifyHalt, isPairingPrecompile, pairingHalt } from './frameError.js';
import { createFrameDataCharge } from './frameDataCharge.js';
import { selfDestructFrame } from './selfDestructFrame.js';
import type { FrameBounds, FrameError, FrameKind, RecordedFrame, RecordedLog } from './types.js';

/** What a CALL-or-CREATE probe saw just before the real handler ran. */
export interface PendingOpcodeFrame {
  kind: FrameKind;
  /** Frame count when the opcode started; a new frame index equal to it means the call ran. */
  frameCountBefore: number;
  /** Gas handed to the child (messageGasLimit plus the stipend on value calls). */
  gas: bigint;
  /** Gas requested by the opcode before the stipend. */
  requestedGas: bigint;
  value: bigint;
  /** Callee (CALL/STATICCALL) or code address (CALLCODE/DELEGATECALL); undefined for creates. */
  target: Uint8Array | undefined;
  /** Reads the call's input from memory, only needed if the call never starts. */
  readInput: () => Uint8Array;
  depthExceeded: boolean;
  nonceOverflow: boolean;
}

interface OpenFrame {
  index: number;
  message: Message;
  sentry: boolean;
  /** geth would fail the frame's halting op for gas before refusing it (gethGasFirst.ts). */
  gasFirstFailure?: 'outOfGas' | 'reentrancySentry';
  /** Alive-log count when the frame opened; restored if the frame fails. */
  aliveLogsAtStart: number;
}

/** Options fixed for one execution. */
export interface FrameTrackerOptions {
  /** Chainstart rules: a failed code deposit is not an error (geth, `frontier_create_outofstorage`). */
  frontier: boolean;
  /** EIP-3541 (London on): a create may not deploy code starting with 0xEF. */
  eip3541: boolean;
  /** BN254 pairing prices, from Byzantium on (a failed pairing call is classified as geth does). */
  pairingGas?: PairingGas;
  /** Bounds on the frames' call data and return data (see FrameBounds). */
  bounds?: FrameBounds;
}

export interface FrameTracker {
  frames: RecordedFrame[];
  logs: RecordedLog[];
  /** Index of the innermost open frame, -1 outside execution. */
  current(): number;
  beforeMessage(message: Message): void;
  /** Closes the innermost frame; returns its message (its `code` is loaded by now). */
  afterMessage(result: EVMResult): Message | undefined;
  /** A CALL-or-CREATE opcode is about to run its handler. */
  opcodeStart(pending: PendingOpcodeFrame): void;
  /** The handler of that CALL-or-CREATE returned; adds a never-started frame if no message came. */
  opcodeEnd(pending: PendingOpcodeFrame): void;
  selfDestruct(beneficiary: Uint8Array, balance: bigint): void;
  /** The current frame's SSTORE met the EIP-2200 sentry (≤ 2300 gas left); its OOG is the sentry's. */
  markSentry(): void;
  /** geth would fail the current frame's next op for gas before refusing it (static write, RETURNDATACOPY bounds). */
  markGasFirstFailure(kind: 'outOfGas' | 'reentrancySentry'): void;
  log(address: Uint8Array, topics: Uint8Array[], data: Uint8Array): void;
  /** Some frame's input was left out (frame bounds of kind `drop`). */
  incomplete(): boolean;
}

const EMPTY = new Uint8Array(0);

const M = EVMError.errorMessages;

function kindFromMessage(message: Message, parentStatic: boolean): FrameKind {
  if (!message.to) return message.salt ? 'CREATE2' : 'CREATE';
  if (message.delegatecall) return 'DELEGATECALL';
  if (message._codeAddress && !message._codeAddress.equals(message.to)) return 'CALLCODE';
  if (message.isStatic && !parentStatic) return 'STATICCALL';
  return 'CALL';
}

function isCreate(kind: FrameKind): boolean {
  return kind === 'CREATE' || kind === 'CREATE2';
}

export function createFrameTracker(options: FrameTrackerOptions): FrameTracker {
  const frames: RecordedFrame[] = [];
  const logs: RecordedLog[] = [];
  const open: OpenFrame[] = [];
  let pending: PendingOpcodeFrame | undefined;
  let aliveLogs = 0;
  const charge = createFrameDataCharge(options.bounds);
  const charged = charge.charged;

  const current = (): number => (open.length ? open[open.length - 1]!.index : -1);

  function contextOf(index: number): Uint8Array | undefined {
    const openFrame = open.find((f) => f.index === index);
    return openFrame?.message.to?.bytes ?? frames[index]?.contextAddress;
  }

  function addFrame(frame: RecordedFrame): number {
    const index = frames.length;
    frames.push(frame);
    if (frame.parent >= 0) frames[frame.parent]!.children.push(index);
    return index;
  }

  return {
    frames,
    logs,
    current,

    beforeMessage(message) {
      const parent = current();
      const parentFrame = parent >= 0 ? frames[parent] : undefined;
      const parentStatic = parent >= 0 ? open[open.length - 1]!.message.isStatic : false;
      const claimed = pending && pending.frameCountBefore === frames.length ? pending : undefined;
      const kind = claimed?.kind ?? kindFromMessage(message, parentStatic);
      const create = isCreate(kind);
      const from = parentFrame ? (contextOf(parent) ?? message.caller.bytes) : message.caller.bytes;
      const index = addFrame({
        parent,
        children: [],
        depth: message.depth,
        kind,
        from,
        to: create ? undefined : (message._codeAddress ?? message.to)?.bytes,
        contextAddress: message.to?.bytes,
        value: message.value,
        gas: message.gasLimit,
        gasUsed: 0n,
        // The EVM hands over a view into the caller's memory; keep a copy.
        input: Uint8Array.from(charged(message.data, true)),
        output: new Uint8Array(0),
        error: undefined,
        precompile: false,
        started: true,
        logs: [],
        requestedGas: claimed?.requestedGas,
      });
      open.push({ index, message, sentry: false, aliveLogsAtStart: aliveLogs });
    },

    afterMessage(result) {
      const top = open.pop();
      if (!top) return undefined;
      const frame = frames[top.index]!;
      const exec = result.execResult;
      const runState = exec.runState as
        | { opCode?: number; gasLeft?: bigint; stack?: { getStack(): bigint[] }; returnBytes?: Uint8Array; returnValue?: Uint8Array }
        | undefined;
      frame.precompile = top.message.isCompiled === true;
      frame.gasUsed = exec.executionGasUsed;
      // A precompile (identity) can return a megabyte for a hundred thousand gas: outputs count too.
      frame.output = charged(exec.returnValue ?? EMPTY, false);
      if (isCreate(frame.kind) && result.createdAddress) {
        frame.to = result.createdAddress.bytes;
        frame.contextAddress = result.createdAddress.bytes;
      }
      let error: FrameError | undefined = classifyHalt(exec.exceptionError, {
        opCode: runState?.opCode,
        stack: runState?.stack?.getStack?.(),
        returnDataLength: runState?.returnBytes?.length,
        returned: runState?.returnValue !== undefined,
        refusedPrefix: options.eip3541 && runState?.returnValue?.[0] === 0xef,
        isCreate: isCreate(frame.kind),
        precompile: frame.precompile,
        sentry: top.sentry,
      });
      if ((error?.kind === 'writeProtection' || error?.kind === 'returnDataOutOfBounds') && top.gasFirstFailure) error = { kind: top.gasFirstFailure, message: M.OUT_OF_GAS };
      if (error && options.pairingGas && frame.precompile && isPairingPrecompile(frame.to)) error = pairingHalt(error, frame.gas, frame.input.length, options.pairingGas);
      if (error && exec.exceptionError?.error === M.CODESTORE_OUT_OF_GAS && options.frontier) {
        // Frontier keeps the account and reports success with the code as output (geth).
        error = undefined;
        frame.output = runState?.returnValue ?? frame.output;
      }
      frame.error = error;
      if (error && error.kind !== 'revert') frame.output = new Uint8Array(0);
      if (error) aliveLogs = top.aliveLogsAtStart;
      return top.message;
    },

    opcodeStart(p) {
      pending = p;
    },

    opcodeEnd(p) {
      if (pending === p) pending = undefined;
      if (frames.length !== p.frameCountBefore) return;
      const parent = current();
      if (parent < 0) return;
      const error: FrameError = p.depthExceeded
        ? { kind: 'callDepthExceeded', message: 'max call depth exceeded' }
        : p.nonceOverflow
          ? { kind: 'nonceOverflow', message: 'nonce uint64 overflow' }
          : { kind: 'insufficientBalance', message: 'insufficient balance for transfer' };
      addFrame({
        parent,
        children: [],
        depth: frames[parent]!.depth + 1,
        kind: p.kind,
        from: contextOf(parent) ?? new Uint8Array(20),
        to: p.target,
        contextAddress: undefined,
        value: p.value,
        gas: p.gas,
        gasUsed: 0n,
        input: charged(p.readInput(), true),
        output: new Uint8Array(0),
        error,
        precompile: false,
        started: false,
        logs: [],
        requestedGas: p.requestedGas,
      });
    },

    markGasFirstFailure(kind) {
      const top = open[open.length - 1];
      if (top) top.gasFirstFailure = kind;
    },

    markSentry() {
      const top = open[open.length - 1];
      if (top) top.sentry = true;
    },

    selfDestruct(beneficiary, balance) {
      const parent = current();
      if (parent < 0) return;
      addFrame(selfDestructFrame(parent, frames[parent]!.depth, contextOf(parent) ?? new Uint8Array(20), beneficiary, balance));
    },

    log(address, topics, data) {
      const frame = current();
      if (frame < 0) return;
      const index = logs.length;
      logs.push({ frame, address, topics, data, position: frames[frame]!.children.length, indexInTx: aliveLogs++ });
      frames[frame]!.logs.push(index);
    },

    incomplete: () => charge.dropped(),
  };
}
