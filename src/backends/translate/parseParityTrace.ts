// Parity `trace` entries of one transaction (trace_transaction, trace_replay*'s `trace`) → the
// record's frame arena. Entries are checked to nest (a parent before its children, `subtraces`
// equal to the children listed, `traceAddress` in order). What Parity entries do not carry becomes
// a gap of the record: logs always; with OpenEthereum-style failed entries (no `result`) a
// reverted frame's gas used and revert data; without `creationMethod`, CREATE versus CREATE2; and
// error texts coarser than geth's. Frames Parity leaves out (nested zero-value calls into
// precompiles on OpenEthereum and Erigon; calls that failed their pre-checks) are not recorded.
import type { FrameError, FrameKind, RecordedFrame, RecordedTx } from '../../engine/record/types.js';
import { frameErrorFromGethText, frameErrorFromParityText } from './frameErrorFromText.js';
import { isPrecompileAddress } from './precompiles.js';
import { type RecordGap, type TranslatedRecord, noteGap } from './translatedRecord.js';
import { address, bytes, quantity } from './txFacts.js';
import { type Obj, upstreamOutputReader } from './upstreamOutput.js';

const CALL_TYPES: Record<string, FrameKind> = { call: 'CALL', callcode: 'CALLCODE', delegatecall: 'DELEGATECALL', staticcall: 'STATICCALL' };

const { malformed, object, parse } = upstreamOutputReader('trace');

export interface ParityTraceSource {
  /** The transaction's entries, in the order the node gave them. */
  entries: unknown;
  /** The transaction's facts (txFacts.ts); `gasUsed` is the receipt's. */
  tx: RecordedTx;
  hardfork?: string;
  /**
   * The wording of `error`: OpenEthereum's (trace_*, geth's flatCallTracer with
   * `convertParityErrors`; the default) or geth's VM texts (geth's flatCallTracer without it).
   */
  errorWording?: 'parity' | 'geth';
}

function kindOf(type: unknown, action: Obj, where: string, gaps: Map<RecordGap, string>): FrameKind {
  if (type === 'call') {
    const kind = CALL_TYPES[String(action.callType)];
    if (!kind) throw malformed(where, `unknown callType ${JSON.stringify(action.callType)?.slice(0, 40)}`);
    return kind;
  }
  if (type === 'create') {
    if (action.creationMethod === 'create2') return 'CREATE2';
    if (action.creationMethod !== 'create') noteGap(gaps, 'creationMethod', `${where}: the entry does not say whether it was CREATE or CREATE2`);
    return 'CREATE';
  }
  if (type === 'suicide') return 'SELFDESTRUCT';
  throw malformed(where, `unknown entry type ${JSON.stringify(type)?.slice(0, 40)}`);
}

/** Parses one transaction's Parity entries into a record; throws UpstreamTraceMalformedError when they do not nest. */
export function recordFromParityTrace(source: ParityTraceSource): TranslatedRecord {
  if (!Array.isArray(source.entries) || source.entries.length === 0) throw malformed('trace', 'is not a non-empty list of entries');
  const gaps = new Map<RecordGap, string>();
  noteGap(gaps, 'logs', 'Parity traces carry no logs');
  const frames: RecordedFrame[] = [];
  /** Frame index by trace address, and each frame's announced subtraces. */
  const byAddress = new Map<string, number>();
  const announced: number[] = [];
  source.entries.forEach((raw, i) => {
    const where = `trace[${i}]`;
    const entry = object(raw, where);
    const action = object(entry.action, `${where}.action`);
    if (!Array.isArray(entry.traceAddress) || !entry.traceAddress.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)) {
      throw malformed(where, '`traceAddress` is not a list of indices');
    }
    const traceAddress = entry.traceAddress as number[];
    if ((i === 0) !== (traceAddress.length === 0)) throw malformed(where, 'the first entry, and only it, must be the top call');
    const parent = traceAddress.length === 0 ? -1 : byAddress.get(traceAddress.slice(0, -1).join(','));
    if (parent === undefined) throw malformed(where, 'its parent entry is not listed before it');
    if (parent >= 0 && frames[parent]!.children.length !== traceAddress.at(-1)) throw malformed(where, 'entries are not in trace-address order');
    if (!Number.isSafeInteger(entry.subtraces) || (entry.subtraces as number) < 0) throw malformed(where, '`subtraces` is not a count');
    const kind = kindOf(entry.type, action, where, gaps);
    const index = frames.length;
    byAddress.set(traceAddress.join(','), index);
    announced.push(entry.subtraces as number);
    frames.push(frameOf(kind, action, entry, parent, traceAddress.length, where, gaps, frames, source.errorWording ?? 'parity'));
    if (parent >= 0) frames[parent]!.children.push(index);
  });
  frames.forEach((frame, i) => {
    if (frame.children.length !== announced[i]) throw malformed(`trace[${i}]`, `\`subtraces\` says ${announced[i]} but ${frame.children.length} are listed`);
  });

  const tx = { ...source.tx };
  const root = frames[0]!;
  if (root.kind === 'SELFDESTRUCT') throw malformed('trace[0]', 'the top entry is a suicide');
  tx.output = root.output;
  tx.error = root.error;
  if ((root.kind === 'CREATE' || root.kind === 'CREATE2') && !root.error) tx.createdAddress = root.to;
  tx.executionGasUsed = root.gasUsed;
  if (tx.gasUsed > tx.gasLimit) throw malformed('trace[0]', 'the receipt gas used is above the transaction gas limit');
  return {
    record: { tx, frames, logs: [], accounts: undefined, steps: undefined, frameCode: undefined, hardfork: source.hardfork ?? 'prague' },
    gaps,
  };
}

function frameOf(kind: FrameKind, action: Obj, entry: Obj, parent: number, depth: number, where: string, gaps: Map<RecordGap, string>, frames: RecordedFrame[], wording: 'parity' | 'geth'): RecordedFrame {
  let error: FrameError | undefined;
  if (entry.error !== undefined) {
    if (typeof entry.error !== 'string') throw malformed(where, '`error` is not a string');
    const parsed = wording === 'geth' ? frameErrorFromGethText(entry.error) : frameErrorFromParityText(entry.error);
    if (parsed) {
      error = parsed.error;
      if (!parsed.gethExact) noteGap(gaps, 'gethErrorText', `${where}: ${JSON.stringify(entry.error)} names several geth errors`);
      if (!parsed.parityExact) noteGap(gaps, 'parityErrorText', `${where}: ${JSON.stringify(entry.error)} has no exact OpenEthereum wording`);
    } else {
      error = { kind: 'other', message: entry.error };
      noteGap(gaps, 'gethErrorText', `${where}: unknown error text ${JSON.stringify(entry.error).slice(0, 80)}`);
      noteGap(gaps, 'parityErrorText', `${where}: unknown error text ${JSON.stringify(entry.error).slice(0, 80)}`);
    }
  }
  if (kind === 'SELFDESTRUCT') {
    return {
      parent, children: [], depth, kind,
      from: parse(where, 'address', address, action.address),
      to: parse(where, 'refundAddress', address, action.refundAddress),
      contextAddress: undefined,
      value: parse(where, 'balance', quantity, action.balance),
      gas: 0n, gasUsed: 0n, input: new Uint8Array(0), output: new Uint8Array(0),
      error: undefined, precompile: false, started: false, logs: [],
    };
  }
  const create = kind === 'CREATE' || kind === 'CREATE2';
  const from = parse(where, 'from', address, action.from);
  const gas = parse(where, 'gas', quantity, action.gas);
  if (parent >= 0 && frames[parent]!.kind !== 'SELFDESTRUCT' && gas > frames[parent]!.gas) throw malformed(where, "gas is above the parent entry's gas");
  // core-geth's Parity tracer gives a failed entry `"result": {}`: the same as none.
  const emptyOnError = error !== undefined && typeof entry.result === 'object' && entry.result !== null && Object.keys(entry.result).length === 0;
  const result = entry.result === undefined || entry.result === null || emptyOnError ? undefined : object(entry.result, `${where}.result`);
  if (!error && !result) throw malformed(where, 'a succeeded entry has no `result`');
  let gasUsed = gas;
  let output: Uint8Array = new Uint8Array(0);
  let to = create ? undefined : parse(where, 'to', address, action.to);
  if (result) {
    gasUsed = parse(where, 'result.gasUsed', quantity, result.gasUsed);
    if (gasUsed > gas) throw malformed(where, 'gasUsed is above gas');
    output = parse(where, create ? 'result.code' : 'result.output', bytes, create ? result.code : result.output);
    if (create && result.address !== undefined && result.address !== null) to = parse(where, 'result.address', address, result.address);
  } else if (error?.kind === 'revert') {
    // OpenEthereum style: a reverted entry without `result` hides its gas used and revert data.
    noteGap(gaps, 'frameGasUsed', `${where}: a reverted entry without \`result\``);
    noteGap(gaps, 'revertOutput', `${where}: a reverted entry without \`result\``);
  }
  // An exceptional halt (no `result`) used all its gas: `gasUsed` stays `gas`; a call that failed
  // its balance pre-check (anvil lists it) never ran and used none.
  if (error?.kind === 'insufficientBalance') gasUsed = 0n;
  return {
    parent, children: [], depth, kind, from, to,
    contextAddress: kind === 'DELEGATECALL' || kind === 'CALLCODE' ? (parent >= 0 ? frames[parent]!.contextAddress : from) : to,
    value: kind === 'STATICCALL' || action.value === undefined ? 0n : parse(where, 'value', quantity, action.value),
    gas, gasUsed,
    input: parse(where, create ? 'init' : 'input', bytes, create ? action.init : action.input),
    output,
    error,
    precompile: !create && to !== undefined && isPrecompileAddress(to),
    started: error?.kind !== 'insufficientBalance',
    logs: [],
  };
}
