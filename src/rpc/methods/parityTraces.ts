// Shared by the trace_* handlers: Parity trace entries of mined transactions and blocks (with
// block/transaction locators, cached until a reorg) and replay results for trace types. Results
// are JSON text (RawJson, rendered where the trace ran), which the gateway sends as is.
import type { Block } from '@ethereumjs/block';
import type { ParityTraceType } from '../../engine/render/parityTraceResults.js';
import type { Tracer } from '../../engine/trace/createTracer.js';
import { bytesToHex, type Hex } from '../hex.js';
import type { RawJson } from '../rawJson.js';

/** trace_transaction entries of mined transaction `hash`, as JSON text (ResourceNotFoundError if unknown). */
export function transactionTraceEntries(tracer: Tracer, hash: Hex): Promise<RawJson> {
  return tracer.cachedTransaction(hash, 'trace_transaction', (mined) => tracer.traceTransaction(mined, { format: 'parityTrace' }));
}

/** trace_block entries of a block: every transaction's entries in order, as JSON text. */
export function blockTraceEntries(tracer: Tracer, block: Block): Promise<RawJson> {
  return tracer.cached(`trace_block:${bytesToHex(block.hash())}`, () => tracer.traceBlock(block, { format: 'parityTrace' }));
}

/** trace_replayBlockTransactions results: one `{output, stateDiff, trace, vmTrace, transactionHash}` per transaction. */
export function blockReplayResults(tracer: Tracer, block: Block, types: ParityTraceType[]): Promise<RawJson> {
  return tracer.cached(`trace_replayBlock:${bytesToHex(block.hash())}:${types.join(',')}`, () => tracer.traceBlock(block, { format: 'parityResults', types }));
}

/** trace_replayTransaction result of mined transaction `hash`, as JSON text. */
export function transactionReplayResult(tracer: Tracer, hash: Hex, types: ParityTraceType[]): Promise<RawJson> {
  return tracer.cachedTransaction(hash, `trace_replayTransaction:${types.join(',')}`, (mined) => tracer.traceTransaction(mined, { format: 'parityResults', types }));
}
