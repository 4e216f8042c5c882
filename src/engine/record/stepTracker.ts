// Records opcode steps from the EVM's `step` event, only for renderers that need them (struct
// logger, Parity vmTrace). For vmTrace it also records what each opcode left behind, which the
// event does not report: that is read from the next step of the same frame (or the frame's end).
// Under server bounds it charges each step and its output weight to the job's budget as it records,
// and keeps the refusal once the budget is spent (the recorder throws it into the EVM).
import type { InterpreterStep } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import { OP, opcodePushes } from './opcodeInfo.js';
import { stepCapError } from './stepBudget.js';
import type { FrameError, RecordedStep, StepEffect, StepNeeds } from './types.js';

export interface StepTracker {
  steps: RecordedStep[];
  onStep(event: InterpreterStep, frame: number): Promise<void>;
  /** The probe saw a CALL-or-CREATE ask for `requestedGas` (before the stipend). */
  onCallOpcode(frame: number, requestedGas: bigint): void;
  onFrameStart(frame: number, parent: number): void;
  /** A frame ended: finalise its last step; `childOutput` becomes the parent's return buffer. */
  onFrameEnd(frame: number, parent: number, end: FrameEnd): void;
  /** A CALL-or-CREATE that never started empties the return buffer. */
  onCallNeverStarted(frame: number): void;
  /** A frame's code was recorded (vmTrace renders it). */
  onFrameCode(code: Uint8Array): void;
  /** The error that stops the recording once the budget is spent, else undefined. */
  refusal(): Error | undefined;
}

export interface FrameEnd {
  gasLeft: bigint;
  stack: bigint[] | undefined;
  memory: Uint8Array | undefined;
  /** Exceptional halt raised by the frame's last opcode (not revert, not a code-deposit failure). */
  haltedAtLastStep: FrameError | undefined;
  /** What the parent's RETURNDATA buffer holds afterwards. */
  returnData: Uint8Array;
}

/**
 * The value of a slot as the executing code sees it at the step (the struct logger's SLOAD view).
 * A synchronous answer keeps `onStep` synchronous: the interpreter's recorder reads its own state.
 */
export type SlotReader = (address: Address, key: bigint) => bigint | Promise<bigint>;

const EMPTY = new Uint8Array(0);
const CALL_OR_CREATE = new Set<number>([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL, OP.CREATE, OP.CREATE2]);

/** Memory window an opcode writes, from its own input stack (top = last), per OpenEthereum. */
function memoryWritten(op: number, stack: bigint[]): [bigint, bigint] | undefined {
  const at = (i: number): bigint => stack[stack.length - 1 - i] ?? 0n;
  switch (op) {
    case 0x51: // MLOAD
    case 0x52: // MSTORE
      return [at(0), 32n];
    case 0x53: // MSTORE8
      return [at(0), 1n];
    case 0x37: // CALLDATACOPY
    case 0x39: // CODECOPY
    case 0x3e: // RETURNDATACOPY
    case 0x5e: // MCOPY
      return [at(0), at(2)];
    case 0x3c: // EXTCODECOPY
      return [at(1), at(3)];
    case OP.CALL:
    case OP.CALLCODE:
      return [at(5), at(6)];
    case OP.DELEGATECALL:
    case OP.STATICCALL:
      return [at(4), at(5)];
    default:
      return undefined;
  }
}

/** Whether `op` writes memory (vmTrace shows the window it wrote; the interpreter copies memory after it). */
export function writesMemory(op: number): boolean {
  return memoryWritten(op, []) !== undefined;
}

interface PendingEffect {
  step: RecordedStep;
  /** Input stack of the step (needed to find the written memory window and SSTORE pair). */
  stack: bigint[];
}

function effectFrom(pending: PendingEffect, gasLeft: bigint, stack: bigint[] | undefined, memory: Uint8Array | undefined): StepEffect {
  const op = pending.step.op;
  const k = opcodePushes(op);
  const push = stack && k > 0 ? stack.slice(Math.max(0, stack.length - k)) : [];
  let mem: StepEffect['mem'];
  const window = memoryWritten(op, pending.stack);
  if (window && window[1] > 0n && memory && window[0] < 2n ** 32n && window[1] < 2n ** 32n) {
    const offset = Number(window[0]);
    const length = Number(window[1]);
    const data = new Uint8Array(length);
    data.set(memory.subarray(offset, Math.min(memory.length, offset + length)));
    mem = { offset, data };
  }
  let store: StepEffect['store'];
  if (op === OP.SSTORE) {
    const s = pending.stack;
    store = { key: s[s.length - 1] ?? 0n, value: s[s.length - 2] ?? 0n };
  }
  return { gasLeft, push, mem, store };
}

export function createStepTracker(needs: StepNeeds, readSlot: SlotReader): StepTracker {
  const steps: RecordedStep[] = [];
  const pendingByFrame = new Map<number, PendingEffect>();
  const lastStepByFrame = new Map<number, RecordedStep>();
  const returnDataByFrame = new Map<number, Uint8Array>();
  let limited = false;
  const budget = needs.bounds?.budget;
  const weigher = needs.bounds?.weigher();
  let refused: Error | undefined;
  /** Charges the budget; once a cap is passed, keeps the refusal (and reports it). */
  const charge = (steps: number, bytes: number): boolean => {
    const passed = budget!.charge(steps, bytes);
    if (passed) refused ??= stepCapError(budget!, passed, needs.bounds!.advice);
    return passed !== undefined;
  };
  const chargeEffect = (effect: StepEffect | undefined): void => {
    if (weigher && effect && !refused) charge(0, weigher.effect(effect));
  };

  return {
    steps,

    async onStep(event, frame) {
      const pending = pendingByFrame.get(frame);
      if (pending && needs.effects) {
        pending.step.after = effectFrom(pending, event.gasLeft, event.stack, event.memory);
        chargeEffect(pending.step.after);
        pendingByFrame.delete(frame);
      }
      if (limited || refused) return;
      if (needs.limit > 0 && steps.length >= needs.limit) {
        limited = true;
        return;
      }
      const op = event.opcode.code;
      const step: RecordedStep = {
        frame,
        pc: event.pc,
        op,
        gas: event.gasLeft,
        gasCost: event.opcode.dynamicFee ?? BigInt(event.opcode.fee),
        depth: event.depth + 1,
        refund: event.gasRefund,
      };
      if (needs.stack) step.stack = event.stack;
      if (needs.memory) step.memory = event.memory;
      if (needs.returnData) step.returnData = returnDataByFrame.get(frame) ?? EMPTY;
      if (needs.storage && (op === OP.SLOAD || op === OP.SSTORE) && event.stack.length >= (op === OP.SSTORE ? 2 : 1)) {
        const key = event.stack[event.stack.length - 1]!;
        const read = op === OP.SSTORE ? event.stack[event.stack.length - 2]! : readSlot(event.address, key);
        step.storageWrite = { key, value: typeof read === 'bigint' ? read : await read };
      }
      // Past a cap the step is not kept: the recording stops and is dropped with the refused trace.
      if (weigher && charge(1, weigher.step(step, step.storageWrite ? event.address.toString() : ''))) return;
      steps.push(step);
      lastStepByFrame.set(frame, step);
      if (needs.effects) pendingByFrame.set(frame, { step, stack: event.stack });
    },

    onCallOpcode(frame, requestedGas) {
      const step = lastStepByFrame.get(frame);
      if (step && step.childGas === undefined && CALL_OR_CREATE.has(step.op)) step.childGas = requestedGas;
    },

    onFrameStart(frame, parent) {
      returnDataByFrame.set(frame, EMPTY);
      const step = lastStepByFrame.get(parent);
      if (step && step.childFrame === undefined) step.childFrame = frame;
    },

    onFrameEnd(frame, parent, end) {
      const pending = pendingByFrame.get(frame);
      if (pending) {
        pending.step.after = end.haltedAtLastStep ? undefined : effectFrom(pending, end.gasLeft, end.stack, end.memory);
        chargeEffect(pending.step.after);
        pendingByFrame.delete(frame);
      }
      const last = lastStepByFrame.get(frame);
      if (last && end.haltedAtLastStep) last.error = end.haltedAtLastStep;
      pendingByFrame.delete(frame);
      lastStepByFrame.delete(frame);
      returnDataByFrame.delete(frame);
      if (parent >= 0) returnDataByFrame.set(parent, end.returnData);
    },

    onCallNeverStarted(frame) {
      returnDataByFrame.set(frame, EMPTY);
    },

    onFrameCode(code) {
      if (weigher && !refused) charge(0, weigher.frameCode(code));
    },

    refusal: () => refused,
  };
}
