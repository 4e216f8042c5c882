// geth's `flatCallTracer`: the callTracer tree flattened into Parity-shaped entries, keeping geth
// semantics (root gas = tx gas limit and receipt gas used, geth error texts unless
// `convertParityErrors`, pre-check failures listed, nested CALL/STATICCALL to precompiles hidden
// unless `includePrecompiles`, `onlyTopCall` ignored). Reference: eth/tracers/native/call_flat.go.
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import type { ExecutionRecord, RecordedFrame } from '../record/types.js';
import { gethErrorText, parityErrorText } from './errorText.js';
import { flattenFrames } from './flattenFrames.js';
import { finishParityEntry, parityResultOf, type ParityTraceEntry } from './parityTrace.js';
import type { Json, RenderContext } from './types.js';

export interface FlatCallTracerConfig {
  convertParityErrors?: boolean;
  includePrecompiles?: boolean;
}

function isCreate(frame: RecordedFrame): boolean {
  return frame.kind === 'CREATE' || frame.kind === 'CREATE2';
}

function visible(frame: RecordedFrame, config: FlatCallTracerConfig): boolean {
  if (config.includePrecompiles || !frame.precompile || frame.parent < 0) return true;
  return frame.kind !== 'CALL' && frame.kind !== 'STATICCALL';
}

function actionOf(frame: RecordedFrame, gas: bigint): Json {
  if (frame.kind === 'SELFDESTRUCT') {
    return { address: bytesToHex(frame.from), refundAddress: bytesToHex(frame.to!), balance: quantityToHex(frame.value) };
  }
  if (isCreate(frame)) {
    return {
      creationMethod: frame.kind.toLowerCase(),
      from: bytesToHex(frame.from),
      gas: quantityToHex(gas),
      init: bytesToHex(frame.input),
      value: quantityToHex(frame.value),
    };
  }
  const action: { [key: string]: Json } = {
    callType: frame.kind.toLowerCase(),
    from: bytesToHex(frame.from),
    gas: quantityToHex(gas),
    input: bytesToHex(frame.input),
    to: bytesToHex(frame.to!),
  };
  if (frame.kind !== 'STATICCALL') action.value = quantityToHex(frame.value);
  return action;
}

/** Renders the `flatCallTracer` result of one transaction. */
export function renderFlatCallTracer(record: ExecutionRecord, config: FlatCallTracerConfig, ctx: RenderContext): ParityTraceEntry[] {
  const flat = flattenFrames(record, (i) => visible(record.frames[i]!, config));
  return flat.map(({ frame: index, traceAddress, subtraces }) => {
    const frame = record.frames[index]!;
    const isRoot = frame.parent < 0;
    const gas = isRoot ? record.tx.gasLimit : frame.gas;
    const gasUsed = isRoot ? record.tx.gasUsed : frame.gasUsed;
    const entry: ParityTraceEntry = { action: actionOf(frame, gas) };
    if (ctx.location) {
      entry.blockHash = ctx.location.blockHash;
      entry.blockNumber = Number(ctx.location.blockNumber);
    }
    if (frame.error) {
      entry.error = config.convertParityErrors
        ? (parityErrorText(frame.error) ?? gethErrorText(frame.error))
        : gethErrorText(frame.error);
    }
    if (frame.kind === 'SELFDESTRUCT') entry.result = null;
    else if (!frame.error || frame.error.kind === 'revert') entry.result = parityResultOf(frame, gasUsed);
    return finishParityEntry(entry, frame, { traceAddress, subtraces }, ctx);
  });
}
