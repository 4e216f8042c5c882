// How many bytes of JSON each recorded step will render to, per step-level format (struct logger,
// Parity vmTrace), so the recorder can charge a job's output budget while it records. The counts
// follow the renderers' shapes (structLogger.ts, parityVmTrace.ts) closely; the rendered answer is
// checked against the cap again in the end (traceJob.ts), so a small miscount cannot let it grow.
import type { RecordedStep, StepEffect, StepWeigher } from '../record/types.js';
import { opcodeName } from '../record/opcodeInfo.js';
import type { StructLoggerConfig } from './structLogger.js';

/** Decimal digits of a non-negative number. */
function decimalDigits(value: number | bigint): number {
  const n = Number(value);
  return n < 10 ? 1 : Math.floor(Math.log10(n)) + 1;
}

/** Length of `quantityToHex(word)` ("0x" + minimal hex digits). */
function quantityLength(word: bigint): number {
  if (word < 0x1_0000_0000n) {
    const n = Number(word);
    return 2 + (n === 0 ? 1 : (35 - Math.clz32(n)) >> 2);
  }
  return 2 + word.toString(16).length;
}

/** A JSON array of quantities: brackets, and per word its quotes and a comma. */
function quantitiesLength(words: readonly bigint[]): number {
  let total = 2;
  for (const word of words) total += quantityLength(word) + 3;
  return total;
}

/** What the client can change to get a smaller struct log, by the cap passed. */
export const STRUCT_LOG_ADVICE = {
  steps: 'trace fewer steps with `limit`',
  bytes: 'trace fewer steps with `limit`, or less per step: leave out enableMemory and enableReturnData, set disableStack or disableStorage',
} as const;

/** What the client can change to get a smaller vmTrace, by the cap passed. */
export const VM_TRACE_ADVICE = {
  steps: 'vmTrace of this execution has too many steps: trace a smaller call, or ask for "trace" or "stateDiff" without "vmTrace"',
  bytes: 'vmTrace of this execution is too large: trace a smaller call, or ask for "trace" or "stateDiff" without "vmTrace"',
} as const;

/** What the client can change when the frames' own data (call input, return data) passes the cap. */
export const FRAME_DATA_ADVICE = {
  steps: 'trace a smaller call or transaction',
  bytes: 'the input and return data of its calls are too large: trace a smaller call or transaction',
} as const;

/** Weighs struct log entries as `renderStructLogger` renders them with `config`. */
export function structLoggerWeigher(config: StructLoggerConfig): StepWeigher {
  // geth repeats an account's whole storage view (every slot read or written so far) at each SLOAD/SSTORE.
  const slotsByOwner = new Map<string, Set<bigint>>();
  return {
    step(step: RecordedStep, storageOwner: string): number {
      // {"pc":,"op":"","gas":,"gasCost":,"depth":} and the separating comma.
      let bytes = 43 + opcodeName(step.op).length + decimalDigits(step.pc) + decimalDigits(step.gas) + decimalDigits(step.gasCost) + decimalDigits(step.depth);
      if (step.refund !== 0n) bytes += 10 + decimalDigits(step.refund);
      if (!config.disableStack && step.stack) bytes += 9 + quantitiesLength(step.stack);
      if (config.enableReturnData && step.returnData && step.returnData.length > 0) bytes += 18 + 2 * step.returnData.length;
      // Each word: 64 hex digits, quotes and a comma.
      if (config.enableMemory && step.memory) bytes += 12 + 67 * Math.ceil(step.memory.length / 32);
      if (!config.disableStorage && step.storageWrite) {
        let slots = slotsByOwner.get(storageOwner);
        if (!slots) slotsByOwner.set(storageOwner, (slots = new Set()));
        slots.add(step.storageWrite.key);
        bytes += 13 + 134 * slots.size;
      }
      return bytes;
    },
    effect: () => 0,
    frameCode: () => 0,
  };
}

/** Weighs vmTrace ops, their effects and frames as `renderParityVmTrace` renders them. */
export function vmTraceWeigher(): StepWeigher {
  return {
    // {"cost":,"ex":null,"pc":,"sub":null,"op":""} and the comma (a call's cost gains the child's gas: up to 8 digits).
    step: (step) => 45 + opcodeName(step.op).length + decimalDigits(step.gasCost) + decimalDigits(step.pc) + (step.op >= 0xf0 ? 8 : 0),
    effect(effect: StepEffect): number {
      // {"mem":null,"push":[],"store":null,"used":} in place of null.
      let bytes = 39 + decimalDigits(effect.gasLeft) + quantitiesLength(effect.push) - 2;
      if (effect.mem) bytes += 18 + decimalDigits(effect.mem.offset) + 2 * effect.mem.data.length;
      if (effect.store) bytes += 20 + quantityLength(effect.store.key) + quantityLength(effect.store.value);
      return bytes;
    },
    // {"code":"0x…","ops":[]} in place of the calling op's `sub: null`.
    frameCode: (code) => 22 + 2 * code.length,
  };
}
