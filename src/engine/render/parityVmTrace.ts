// Parity `vmTrace`: per frame the code that ran and every executed opcode with its cost and what
// it left behind (`ex`: gas left, pushed words, memory written, storage written), nesting the
// child frame of each CALL/CREATE under `sub`. Reference: OpenEthereum
// crates/rpc/src/v1/types/trace.rs (VMTrace), ../shared/conformance/README.md §3.8.
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { OP, opcodeName } from '../record/opcodeInfo.js';
import type { ExecutionRecord, RecordedStep } from '../record/types.js';
import type { Json } from './types.js';

const CALL_OR_CREATE = new Set<number>([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL, OP.CREATE, OP.CREATE2]);

function renderOp(step: RecordedStep, render: (frame: number) => Json): Json {
  const cost = step.gasCost + (CALL_OR_CREATE.has(step.op) ? (step.childGas ?? 0n) : 0n);
  const after = step.after;
  return {
    cost: Number(cost),
    ex: after
      ? {
          mem: after.mem ? { off: after.mem.offset, data: bytesToHex(after.mem.data) } : null,
          push: after.push.map((w) => quantityToHex(w)),
          store: after.store ? { key: quantityToHex(after.store.key), val: quantityToHex(after.store.value) } : null,
          used: Number(after.gasLeft),
        }
      : null,
    pc: step.pc,
    sub: step.childFrame !== undefined ? render(step.childFrame) : null,
    op: opcodeName(step.op),
  };
}

/** Renders the `vmTrace` of one transaction. */
export function renderParityVmTrace(record: ExecutionRecord): Json {
  if (!record.steps || !record.frameCode) throw new Error('vmTrace needs a record with steps');
  const byFrame = new Map<number, RecordedStep[]>();
  for (const step of record.steps) {
    let list = byFrame.get(step.frame);
    if (!list) byFrame.set(step.frame, (list = []));
    list.push(step);
  }
  const render = (frame: number): Json => ({
    code: bytesToHex(record.frameCode![frame] ?? new Uint8Array(0)),
    ops: (byFrame.get(frame) ?? []).map((step) => renderOp(step, render)),
  });
  return render(0);
}
