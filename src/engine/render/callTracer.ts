// geth's `callTracer`: the call tree with gas, input/output, errors, revert reasons and, with
// `withLog`, the logs of frames that did not fail. Reference: go-ethereum
// eth/tracers/native/call.go and the `call_tracer*` fixtures.
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import type { ExecutionRecord, RecordedFrame } from '../record/types.js';
import { gethErrorText } from './errorText.js';
import { decodeRevertReason } from './revertReason.js';
import type { Json, RenderContext } from './types.js';

export interface CallTracerConfig {
  onlyTopCall?: boolean;
  withLog?: boolean;
}

export interface CallFrameJson {
  [key: string]: Json | undefined;
}

function renderLogs(record: ExecutionRecord, frame: RecordedFrame, ctx: RenderContext): Json[] {
  return frame.logs.map((i) => {
    const log = record.logs[i]!;
    return {
      address: bytesToHex(log.address),
      topics: log.topics.map(bytesToHex),
      data: bytesToHex(log.data),
      index: quantityToHex(ctx.logIndexOffset + log.indexInTx),
      position: quantityToHex(log.position),
    };
  });
}

function renderFrame(record: ExecutionRecord, index: number, config: CallTracerConfig, ctx: RenderContext, parentFailed: boolean): CallFrameJson {
  const frame = record.frames[index]!;
  const isRoot = frame.parent < 0;
  const out: CallFrameJson = {
    from: bytesToHex(frame.from),
    gas: quantityToHex(isRoot ? record.tx.gasLimit : frame.gas),
    gasUsed: quantityToHex(isRoot ? record.tx.gasUsed : frame.gasUsed),
  };
  const failed = frame.error !== undefined;
  const createFailed = failed && (frame.kind === 'CREATE' || frame.kind === 'CREATE2');
  if (frame.to && !createFailed) out.to = bytesToHex(frame.to);
  out.input = bytesToHex(frame.input);
  if (!failed) {
    if (frame.output.length > 0) out.output = bytesToHex(frame.output);
  } else {
    out.error = gethErrorText(frame.error!);
    if (frame.error!.kind === 'revert' && frame.output.length > 0) {
      out.output = bytesToHex(frame.output);
      const reason = decodeRevertReason(frame.output);
      if (reason !== undefined) out.revertReason = reason;
    }
  }
  const failedHere = failed || parentFailed;
  if (config.withLog && frame.logs.length > 0 && !failedHere) out.logs = renderLogs(record, frame, ctx);
  if (!config.onlyTopCall && frame.children.length > 0) {
    out.calls = frame.children.map((child) => renderFrame(record, child, config, ctx, failedHere));
  }
  if (frame.kind !== 'STATICCALL') out.value = quantityToHex(frame.value);
  out.type = frame.kind;
  return out;
}

/** Renders the `callTracer` result for one transaction. */
export function renderCallTracer(record: ExecutionRecord, config: CallTracerConfig, ctx: RenderContext): CallFrameJson {
  return renderFrame(record, 0, config, ctx, false);
}
