// geth `callTracer` output (with `withLog`) → the record's frame arena and logs. Accepts geth's and
// anvil's dialects (anvil's root `gas` is the gas after intrinsic gas, its root `gasUsed` may be
// cumulative, it keeps logs of failed frames and prints some revm halt names): the root's gas
// figures are taken from the transaction and receipt instead, and failed frames' logs are kept in
// the record, where every renderer drops them as geth does. Output formats are left to
// src/engine/render.
import type { FrameKind, RecordedFrame, RecordedLog, RecordedTx } from '../../engine/record/types.js';
import { type Obj, upstreamOutputReader } from './upstreamOutput.js';
import { frameErrorFromGethText } from './frameErrorFromText.js';
import { isPrecompileAddress } from './precompiles.js';
import { executionGasBeforeRefund } from './refundTracer.js';
import { type RecordGap, type TranslatedRecord, noteGap } from './translatedRecord.js';
import { address, bytes, quantity } from './txFacts.js';

const KINDS = new Set<FrameKind>(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL', 'CREATE', 'CREATE2', 'SELFDESTRUCT']);

export interface CallTracerSource {
  /** The callTracer result (withLog for logs; without it the record's logs are a `logs` gap). */
  trace: unknown;
  /** The transaction's (or call's) facts; see txFacts.ts. `gasUsed` is the receipt's. */
  tx: RecordedTx;
  withLog: boolean;
  /**
   * The refund counter at the end of the transaction: 0 when it touched no storage (a
   * prestateTracer listing no slot proves it), else from refundTracer.ts; undefined when unknown,
   * which leaves a succeeding transaction's execution gas before the refund a `refund` gap.
   */
  refundCounter: bigint | undefined;
  /**
   * The root's execution gas before the refund when known directly: the engine's own figure from a
   * re-execution verified against the node's receipt (gasByReexecution.ts). Wins over `refundCounter`.
   */
  executionGasBeforeRefund?: bigint;
  /** EIP-7623's minimum gas of the transaction (txFacts.floorDataGas), 0 before Prague. */
  floorGas: bigint;
  hardfork?: string;
}

const { malformed, parse: field } = upstreamOutputReader('callTracer');

function isCreate(kind: FrameKind): boolean {
  return kind === 'CREATE' || kind === 'CREATE2';
}

/** Parses a callTracer tree into a record; throws UpstreamTraceMalformedError on a malformed or inconsistent tree. */
export function recordFromCallTracer(source: CallTracerSource): TranslatedRecord {
  const frames: RecordedFrame[] = [];
  const logs: RecordedLog[] = [];
  const gaps = new Map<RecordGap, string>();
  const pendingLogs: { frame: number; log: Obj; where: string }[] = [];

  const parseFrame = (json: unknown, parent: number, depth: number, where: string): number => {
    if (depth > 1025) throw malformed(where, 'frames nest deeper than the EVM allows');
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw malformed(where, 'a frame is not an object');
    const f = json as Obj;
    const kind = f.type as FrameKind;
    if (!KINDS.has(kind)) throw malformed(where, `unknown frame type ${JSON.stringify(f.type)?.slice(0, 40)}`);
    if (depth === 0 && kind === 'SELFDESTRUCT') throw malformed(where, 'the root frame is a SELFDESTRUCT');
    const from = field(where, 'from', address, f.from);
    const to = f.to === undefined ? undefined : field(where, 'to', address, f.to);
    if (to === undefined && !isCreate(kind)) throw malformed(where, 'a call frame has no `to`');
    const gas = f.gas === undefined && kind === 'SELFDESTRUCT' ? 0n : field(where, 'gas', quantity, f.gas);
    const gasUsed = f.gasUsed === undefined && kind === 'SELFDESTRUCT' ? 0n : field(where, 'gasUsed', quantity, f.gasUsed);
    if (depth > 0 && gasUsed > gas) throw malformed(where, 'gasUsed is above gas');
    // The root's gas is the node's own figure here (geth: the gas limit; anvil: less intrinsic gas), above any child's either way.
    if (depth > 0 && kind !== 'SELFDESTRUCT' && gas > frames[parent]!.gas) throw malformed(where, "gas is above the parent frame's gas");
    let error;
    if (f.error !== undefined) {
      if (typeof f.error !== 'string') throw malformed(where, '`error` is not a string');
      const parsed = frameErrorFromGethText(f.error);
      if (parsed) {
        error = parsed.error;
        if (!parsed.gethExact) noteGap(gaps, 'gethErrorText', `${where}: ${f.error}`);
      } else {
        error = { kind: 'other' as const, message: f.error };
        noteGap(gaps, 'parityErrorText', `${where}: no OpenEthereum wording known for ${JSON.stringify(f.error).slice(0, 80)}`);
      }
    }
    const started = kind !== 'SELFDESTRUCT' && error?.kind !== 'insufficientBalance' && error?.kind !== 'callDepthExceeded';
    const index = frames.length;
    frames.push({
      parent,
      children: [],
      depth,
      kind,
      from,
      to,
      contextAddress: kind === 'DELEGATECALL' || kind === 'CALLCODE' ? (parent >= 0 ? frames[parent]!.contextAddress : from) : to,
      value: f.value === undefined ? 0n : field(where, 'value', quantity, f.value),
      gas,
      gasUsed,
      input: f.input === undefined && kind === 'SELFDESTRUCT' ? new Uint8Array(0) : field(where, 'input', bytes, f.input),
      output: f.output === undefined ? new Uint8Array(0) : field(where, 'output', bytes, f.output),
      error,
      precompile: !isCreate(kind) && kind !== 'SELFDESTRUCT' && to !== undefined && isPrecompileAddress(to),
      started,
      logs: [],
    });
    if (parent >= 0) frames[parent]!.children.push(index);
    if (isCreate(kind) && error?.kind === 'revert' && to === undefined) noteGap(gaps, 'createAddress', `${where}: a reverted create without its address`);
    if (f.logs !== undefined) {
      if (!Array.isArray(f.logs)) throw malformed(where, '`logs` is not an array');
      f.logs.forEach((log, i) => pendingLogs.push({ frame: index, log: log as Obj, where: `${where}.logs[${i}]` }));
    }
    if (f.calls !== undefined) {
      if (!Array.isArray(f.calls)) throw malformed(where, '`calls` is not an array');
      f.calls.forEach((child, i) => parseFrame(child, index, depth + 1, `${where}.calls[${i}]`));
    }
    return index;
  };

  parseFrame(source.trace, -1, 0, 'root');

  for (const { frame, log, where } of pendingLogs) {
    if (typeof log !== 'object' || log === null) throw malformed(where, 'a log is not an object');
    if (!Array.isArray(log.topics) || log.topics.length > 4) throw malformed(where, '`topics` is not a list of at most 4');
    const position = field(where, 'position', quantity, log.position);
    if (position > BigInt(frames[frame]!.children.length)) throw malformed(where, 'position is past the frame\'s calls');
    frames[frame]!.logs.push(logs.length);
    logs.push({
      frame,
      address: field(where, 'address', address, log.address),
      topics: log.topics.map((t, i) => field(where, `topics[${i}]`, bytes, t)),
      data: field(where, 'data', bytes, log.data),
      position: Number(position),
      indexInTx: 0,
    });
  }
  assignLogIndices(frames, logs);
  if (!source.withLog) noteGap(gaps, 'logs', 'the upstream callTracer was asked without withLog');

  const tx = { ...source.tx };
  const root = frames[0]!;
  tx.output = root.output;
  tx.error = root.error;
  if (isCreate(root.kind) && !root.error) tx.createdAddress = root.to;
  if (tx.gasUsed > tx.gasLimit) throw malformed('root', 'the receipt gas used is above the transaction gas limit');
  if (tx.intrinsicGas > tx.gasLimit) throw malformed('root', 'the transaction gas limit is below its intrinsic gas');
  root.gas = tx.gasLimit - tx.intrinsicGas;
  tx.executionGasUsed = executionGasUsed(tx, source, gaps);
  root.gasUsed = tx.executionGasUsed;
  return {
    record: { tx, frames, logs, accounts: undefined, steps: undefined, frameCode: undefined, hardfork: source.hardfork ?? 'prague' },
    gaps,
  };
}

/**
 * Parity's root `gasUsed`: execution gas before the refund, without intrinsic gas. An exceptional
 * halt uses all the gas; a failed root has no refund (the journal takes it back); otherwise it is
 * the receipt's figure plus the refund when the refund is known. EIP-7623's floor hides it when
 * the receipt shows exactly the floor.
 */
function executionGasUsed(tx: RecordedTx, source: CallTracerSource, gaps: Map<RecordGap, string>): bigint {
  const available = tx.gasLimit - tx.intrinsicGas;
  if (tx.error && tx.error.kind !== 'revert') return available;
  if (!tx.error && source.executionGasBeforeRefund !== undefined) return source.executionGasBeforeRefund;
  if (source.floorGas > tx.intrinsicGas && tx.gasUsed === source.floorGas) {
    noteGap(gaps, 'refund', 'the receipt shows the EIP-7623 calldata floor, which hides the execution gas');
  } else if (!tx.error) {
    const before = source.refundCounter === undefined ? undefined : executionGasBeforeRefund(tx.gasUsed, tx.intrinsicGas, source.refundCounter);
    if (before !== undefined) return before;
    noteGap(gaps, 'refund', "the upstream's callTracer reports gas used after the refund, and the refund is unknown (the transaction touched storage and the node's JavaScript tracer could not tell it)");
  }
  return tx.gasUsed - tx.intrinsicGas;
}

/**
 * geth's log index within the transaction: execution order (a frame's logs at `position` p come
 * after its first p calls), a failed frame giving its logs' indices back.
 */
function assignLogIndices(frames: RecordedFrame[], logs: RecordedLog[]): void {
  let alive = 0;
  const walk = (index: number): void => {
    const frame = frames[index]!;
    const start = alive;
    let next = 0;
    const emitUpTo = (position: number): void => {
      while (next < frame.logs.length && logs[frame.logs[next]!]!.position <= position) logs[frame.logs[next++]!]!.indexInTx = alive++;
    };
    frame.children.forEach((child, i) => {
      emitUpTo(i);
      walk(child);
    });
    emitUpTo(frame.children.length);
    if (frame.error) alive = start;
  };
  walk(0);
}
