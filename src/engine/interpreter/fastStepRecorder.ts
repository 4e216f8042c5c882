// The step side of the interpreter's recorder (fastRecorder.ts): the interpreter's step hooks feed
// the same step tracker as ethereumjs's recorder (record/stepTracker.ts) with the event
// ethereumjs's `step` would carry (the cost of a step that halts follows ethereumjs's gas handlers,
// haltingStepCost.ts), and at each frame's end its gas, stack and memory as
// ethereumjs's run state has them (what vmTrace's last op left behind). Frames are fastRecorder's.
import type { InterpreterStep } from '@ethereumjs/evm';
import { Address } from '@ethereumjs/util';
import { NO_FRAME_OUTPUT_KINDS } from '../record/frameError.js';
import { type StepTracker, createStepTracker } from '../record/stepTracker.js';
import type { FrameKind, RecordedFrame, RecordedStep, StepNeeds } from '../record/types.js';
import { Errors, type Message, type MessageResult, type StepHooks } from './message.js';
import { codeToRun } from './interpreter.js';
import { addressBytes } from './words.js';
import type { WorldState } from './worldState.js';

const EMPTY = new Uint8Array(0);
const SLOAD = 0x54;
const SSTORE = 0x55;

/** What ethereumjs's step events show of each opcode. */
export interface OpcodeTable {
  /** The static fee: a step's cost when the opcode's gas handler fails. */
  fees: Uint32Array;
  /** The code its step reports (INVALID, 0xfe, for every undefined opcode). */
  codes: Uint8Array;
}

export interface FastStepRecorderOptions {
  /** Already charging the replay budget when the job has one. */
  needs: StepNeeds;
  opcodes: OpcodeTable | undefined;
  /** The run's state view (slots an SLOAD step shows, the code a frame ran). */
  world(): WorldState;
  /** The frame running now (fastRecorder's index). */
  current(): number;
  /** EIP-7702 is active: a delegated account's frame ran its delegate's code. */
  delegation: boolean;
}

export interface FastStepRecorder {
  hooks: StepHooks;
  /** A new run begins: forget the last one's steps. */
  reset(): void;
  frameStart(index: number, parent: number): void;
  /** A frame exited; `frame` already holds its error (classified as ethereumjs's recorder does). */
  frameExit(index: number, frame: RecordedFrame, message: Message, result: MessageResult): void;
  /** A CALL-or-CREATE of frame `parent` never started. */
  callNeverStarted(parent: number): void;
  /** The recorded steps and frame code; throws the budget's refusal if the last steps spent it. */
  finish(): { steps: RecordedStep[]; frameCode: Uint8Array[] };
}

const isCreate = (kind: FrameKind): boolean => kind === 'CREATE' || kind === 'CREATE2';

export function createFastStepRecorder(options: FastStepRecorderOptions): FastStepRecorder {
  const { needs, opcodes } = options;
  // The value of the slot an SLOAD step reads, read by the step hook before the tracker asks: a
  // read of a slot not yet loaded (an SLOAD that halted before loading it) throws StateMiss, which
  // must reach the driver synchronously (it loads the slot and restarts), not reject onStep.
  let slotValue = 0n;
  const readSlot = (): bigint => slotValue;
  // An error onStep rejected with (none expected: with the slot read beforehand it runs synchronously), thrown at the end.
  let stepError: unknown;
  const keepStepError = (error: unknown): void => {
    stepError ??= error;
  };
  let tracker: StepTracker = createStepTracker(needs, readSlot);
  let frameCode: Uint8Array[] = [];
  // Where the frame that just stopped left its code (StepHooks.codeEnd), read when it exits.
  let codeEnd: { gasLeft: number; stack: bigint[]; memory: Uint8Array } | undefined;

  const hooks: StepHooks = {
    memory: needs.memory,
    memoryAfterWrites: needs.effects,
    fees: opcodes?.fees ?? [],
    step(pc, op, gasLeft, cost, message, refund, stack, memory, childGas) {
      // As ethereumjs's recorder does at its next step event: a spent budget stops the run.
      const refused = tracker.refusal();
      if (refused) throw refused;
      const event = {
        pc,
        opcode: { code: opcodes?.codes[op] ?? op, fee: 0, dynamicFee: BigInt(cost) },
        gasLeft: BigInt(gasLeft),
        depth: message.depth,
        gasRefund: BigInt(refund),
        stack,
        memory,
        // Read only for SLOAD/SSTORE (the storage view and its owner).
        address: op === SLOAD || op === SSTORE ? new Address(addressBytes(message.address)) : undefined,
      } as unknown as InterpreterStep;
      if (op === SLOAD && needs.storage && stack.length > 0) {
        const world = options.world();
        slotValue = world.sload(world.get(message.address), stack[stack.length - 1]!);
      }
      // Synchronous here: the slot reader answers without awaiting.
      const frame = options.current();
      tracker.onStep(event, frame).catch(keepStepError);
      if (childGas !== undefined) tracker.onCallOpcode(frame, BigInt(childGas));
    },
    codeEnd(gasLeft, stack, memory) {
      codeEnd = { gasLeft, stack, memory };
    },
  };

  return {
    hooks,

    reset() {
      tracker = createStepTracker(needs, readSlot);
      frameCode = [];
      codeEnd = undefined;
      stepError = undefined;
    },

    frameStart: (index, parent) => tracker.onFrameStart(index, parent),

    frameExit(index, frame, message, result) {
      const world = options.world();
      const code = message.initCode ?? (frame.precompile ? EMPTY : codeToRun(world, options.delegation, message.codeAddress));
      frameCode[index] = code;
      tracker.onFrameCode(code);
      const returnsData = result.error === undefined || result.error === Errors.REVERT;
      const error = frame.error;
      // A frame that ran no code (a precompile, no code, a create that collided) reported no end.
      const end = codeEnd;
      codeEnd = undefined;
      tracker.onFrameEnd(index, frame.parent, {
        gasLeft: BigInt(end?.gasLeft ?? result.gasLeft),
        stack: end?.stack,
        memory: end?.memory,
        haltedAtLastStep: error && !NO_FRAME_OUTPUT_KINDS.has(error.kind) ? error : undefined,
        returnData: returnsData && !(isCreate(frame.kind) && result.error === undefined) ? result.output : EMPTY,
      });
    },

    callNeverStarted: (parent) => tracker.onCallNeverStarted(parent),

    finish() {
      if (stepError !== undefined) throw stepError;
      // The last steps (or frame ends) may have spent the budget with no step left to throw it.
      const refused = tracker.refusal();
      if (refused) throw refused;
      return { steps: tracker.steps, frameCode };
    },
  };
}
