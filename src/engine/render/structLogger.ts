// geth's default struct logger (debug_trace* without `tracer`): one entry per executed opcode with
// gas, cost, depth and, on request, stack, memory, storage and return data.
// Reference: eth/tracers/logger/logger.go (legacy JSON shape).
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { OP, opcodeName } from '../record/opcodeInfo.js';
import type { ExecutionRecord, RecordedStep } from '../record/types.js';
import { gethErrorText } from './errorText.js';
import type { Json } from './types.js';

export interface StructLoggerConfig {
  enableMemory?: boolean;
  disableStack?: boolean;
  disableStorage?: boolean;
  enableReturnData?: boolean;
  /** Maximum number of entries (0 = no limit). */
  limit?: number;
}

const CALLS = new Set<number>([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL]);
const hex64 = (value: bigint): string => value.toString(16).padStart(64, '0');

function memoryWords(memory: Uint8Array): string[] {
  const words: string[] = [];
  for (let i = 0; i < memory.length; i += 32) words.push(bytesToHex(memory.subarray(i, i + 32)).slice(2).padEnd(64, '0'));
  return words;
}

function renderStep(step: RecordedStep, config: StructLoggerConfig, storage: Map<string, Map<string, string>>, record: ExecutionRecord): Json {
  // geth charges the gas handed to a CALL-family child as part of the CALL's cost (not CREATE's).
  const cost = step.gasCost + (CALLS.has(step.op) ? (step.childGas ?? 0n) : 0n);
  const out: { [key: string]: Json } = {
    pc: step.pc,
    op: opcodeName(step.op),
    gas: Number(step.gas),
    gasCost: Number(cost),
    depth: step.depth,
  };
  if (step.error) out.error = gethErrorText(step.error);
  if (!config.disableStack && step.stack) out.stack = step.stack.map((w) => quantityToHex(w));
  if (config.enableReturnData && step.returnData && step.returnData.length > 0) out.returnData = bytesToHex(step.returnData);
  if (config.enableMemory && step.memory) out.memory = memoryWords(step.memory);
  if (!config.disableStorage && step.storageWrite) {
    const address = bytesToHex(record.frames[step.frame]?.contextAddress ?? new Uint8Array(20));
    let slots = storage.get(address);
    if (!slots) storage.set(address, (slots = new Map()));
    slots.set(hex64(step.storageWrite.key), hex64(step.storageWrite.value));
    out.storage = Object.fromEntries(slots);
  }
  if (step.refund !== 0n) out.refund = Number(step.refund);
  return out;
}

/** Renders `{gas, failed, returnValue, structLogs}` for one transaction. */
export function renderStructLogger(record: ExecutionRecord, config: StructLoggerConfig): Json {
  if (!record.steps) throw new Error('the struct logger needs a record with steps');
  const storage = new Map<string, Map<string, string>>();
  const error = record.tx.error;
  return {
    gas: Number(record.tx.gasUsed),
    failed: error !== undefined,
    returnValue: bytesToHex(!error || error.kind === 'revert' ? record.tx.output : new Uint8Array(0)),
    structLogs: record.steps.map((step) => renderStep(step, config, storage, record)),
  };
}
