// Parity/OpenEthereum `trace` entries (trace_transaction, trace_call, trace_replay*): one entry
// per visible frame, depth-first, with Parity gas semantics for the root (gas minus intrinsic,
// execution gas before refund). Conventions: docs/trace-conventions.md and
// ../shared/conformance/README.md §3.
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import type { ExecutionRecord, RecordedFrame } from '../record/types.js';
import { parityErrorText } from './errorText.js';
import { flattenFrames } from './flattenFrames.js';
import type { Json, RenderContext } from './types.js';

/**
 * `reth` (default, also Erigon and anvil): a reverted frame keeps `result` with its gas and revert
 * data, other failures give `"result": null`, creates carry `creationMethod`.
 * `openethereum`: any failed frame has no `result` key and creates have no `creationMethod`.
 */
export type ParityStyle = 'reth' | 'openethereum';

export interface ParityTraceOptions {
  style?: ParityStyle;
}

export type ParityTraceEntry = { [key: string]: Json | undefined };

/**
 * A nested CALL/STATICCALL into a precompile that moves no value and succeeds is not listed
 * (OpenEthereum ethcore executive.rs: "Trace only top level calls and calls with balance transfer
 * to builtins"); CALLCODE/DELEGATECALL into one are, as core-geth shows
 * (call_tracer_parity/gas.json). Calls that failed their pre-checks never appear.
 */
export function isParityVisible(frame: RecordedFrame): boolean {
  if (frame.kind === 'SELFDESTRUCT') return true;
  if (!frame.started) return false;
  const plainCall = frame.kind === 'CALL' || frame.kind === 'STATICCALL';
  if (frame.precompile && plainCall && frame.parent >= 0 && frame.value === 0n && !frame.error) return false;
  return true;
}

function isCreate(frame: RecordedFrame): boolean {
  return frame.kind === 'CREATE' || frame.kind === 'CREATE2';
}

function actionOf(frame: RecordedFrame, gas: bigint, style: ParityStyle): Json {
  if (frame.kind === 'SELFDESTRUCT') {
    return { address: bytesToHex(frame.from), refundAddress: bytesToHex(frame.to!), balance: quantityToHex(frame.value) };
  }
  if (isCreate(frame)) {
    const action: { [key: string]: Json } = {
      from: bytesToHex(frame.from),
      gas: quantityToHex(gas),
      init: bytesToHex(frame.input),
      value: quantityToHex(frame.value),
    };
    if (style === 'reth') action.creationMethod = frame.kind === 'CREATE2' ? 'create2' : 'create';
    return action;
  }
  return {
    from: bytesToHex(frame.from),
    callType: frame.kind.toLowerCase(),
    gas: quantityToHex(gas),
    input: bytesToHex(frame.input),
    to: bytesToHex(frame.to!),
    value: quantityToHex(frame.kind === 'STATICCALL' ? 0n : frame.value),
  };
}

/** The `result` of a succeeded (or, reth-style, reverted) call or create entry. */
export function parityResultOf(frame: RecordedFrame, gasUsed: bigint): Json {
  if (isCreate(frame)) {
    return {
      address: frame.to ? bytesToHex(frame.to) : null,
      code: bytesToHex(frame.output),
      gasUsed: quantityToHex(gasUsed),
    };
  }
  return { gasUsed: quantityToHex(gasUsed), output: bytesToHex(frame.output) };
}

/** Renders the Parity `trace` array of one transaction (add locators with `ctx.location`). */
export function renderParityTrace(record: ExecutionRecord, options: ParityTraceOptions, ctx: RenderContext): ParityTraceEntry[] {
  const style = options.style ?? 'reth';
  const flat = flattenFrames(record, (i) => isParityVisible(record.frames[i]!));
  return flat.map(({ frame: index, traceAddress, subtraces }) => {
    const frame = record.frames[index]!;
    const isRoot = frame.parent < 0;
    const entry: ParityTraceEntry = { action: actionOf(frame, frame.gas, style) };
    if (ctx.location) {
      entry.blockHash = ctx.location.blockHash;
      entry.blockNumber = Number(ctx.location.blockNumber);
    }
    const errorText = frame.error ? parityErrorText(frame.error) : undefined;
    if (errorText !== undefined) entry.error = errorText;
    const gasUsed = isRoot ? record.tx.executionGasUsed : frame.gasUsed;
    if (frame.kind === 'SELFDESTRUCT') entry.result = null;
    else if (!frame.error) entry.result = parityResultOf(frame, gasUsed);
    else if (style === 'reth') entry.result = frame.error.kind === 'revert' ? parityResultOf(frame, gasUsed) : null;
    return finishParityEntry(entry, frame, { traceAddress, subtraces }, ctx);
  });
}

/** Adds the tree position, the transaction locators and the entry type, last (the key order clients show). */
export function finishParityEntry(entry: ParityTraceEntry, frame: RecordedFrame, position: { traceAddress: number[]; subtraces: number }, ctx: RenderContext): ParityTraceEntry {
  entry.subtraces = position.subtraces;
  entry.traceAddress = position.traceAddress;
  if (ctx.location) {
    entry.transactionHash = ctx.location.transactionHash;
    entry.transactionPosition = ctx.location.transactionPosition;
  }
  entry.type = frame.kind === 'SELFDESTRUCT' ? 'suicide' : isCreate(frame) ? 'create' : 'call';
  return entry;
}
