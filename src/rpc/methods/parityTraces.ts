// Shared by the trace_* handlers: Parity trace entries of mined transactions and blocks (with
// block/transaction locators, cached until a reorg) and replay results for trace types. Results of
// single transactions are cached as JSON text (RawJson), which the gateway sends as is.
import type { Block } from '@ethereumjs/block';
import { needsOfParityTraceTypes, renderParityTraceResults, type ParityTraceType } from '../../engine/render/parityTraceResults.js';
import { renderParityTrace, type ParityTraceEntry } from '../../engine/render/parityTrace.js';
import type { Tracer } from '../../engine/trace/createTracer.js';
import { bytesToHex, type Hex } from '../hex.js';
import { toRawJson, type RawJson } from '../rawJson.js';

const TRACE_ONLY = { state: false, steps: undefined };

/** trace_transaction entries of mined transaction `hash`, as JSON text (ResourceNotFoundError if unknown). */
export function transactionTraceEntries(tracer: Tracer, hash: Hex): Promise<RawJson> {
  return tracer.cachedTransaction(hash, 'trace_transaction', async (mined) => {
    const record = await tracer.recordTransaction(mined, TRACE_ONLY);
    return toRawJson(renderParityTrace(record, {}, mined.context));
  });
}

/** trace_block entries of a block: every transaction's entries in order. */
export function blockTraceEntries(tracer: Tracer, block: Block): Promise<ParityTraceEntry[]> {
  return tracer.cached(`trace_block:${bytesToHex(block.hash())}`, async () => {
    const traces = await tracer.recordBlock(block, TRACE_ONLY);
    return traces.flatMap(({ record, context }) => renderParityTrace(record, {}, context));
  });
}

/** trace_replayBlockTransactions results: one `{output, stateDiff, trace, vmTrace, transactionHash}` per transaction. */
export function blockReplayResults(tracer: Tracer, block: Block, types: ParityTraceType[]): Promise<unknown[]> {
  return tracer.cached(`trace_replayBlock:${bytesToHex(block.hash())}:${types.join(',')}`, async () => {
    const traces = await tracer.recordBlock(block, needsOfParityTraceTypes(types));
    return traces.map(({ tx, record }) => ({ ...renderParityTraceResults(record, types), transactionHash: bytesToHex(tx.hash()) }));
  });
}

/** trace_replayTransaction result of mined transaction `hash`, as JSON text. */
export function transactionReplayResult(tracer: Tracer, hash: Hex, types: ParityTraceType[]): Promise<RawJson> {
  return tracer.cachedTransaction(hash, `trace_replayTransaction:${types.join(',')}`, async (mined) => {
    const record = await tracer.recordTransaction(mined, needsOfParityTraceTypes(types));
    return toRawJson(renderParityTraceResults(record, types));
  });
}
