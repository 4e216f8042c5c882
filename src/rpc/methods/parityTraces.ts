// Shared by the trace_* handlers: Parity trace entries of mined transactions and blocks (with
// block/transaction locators, cached until a reorg) and replay results for trace types.
import type { Block } from '@ethereumjs/block';
import { needsOfParityTraceTypes, renderParityTraceResults, type ParityTraceType } from '../../engine/render/parityTraceResults.js';
import { renderParityTrace, type ParityTraceEntry } from '../../engine/render/parityTrace.js';
import type { MinedTransaction, Tracer } from '../../engine/trace/createTracer.js';
import { bytesToHex, type Hex } from '../hex.js';

const TRACE_ONLY = { state: false, steps: undefined };

/** trace_transaction entries of a mined transaction. */
export function transactionTraceEntries(tracer: Tracer, mined: MinedTransaction): Promise<ParityTraceEntry[]> {
  return tracer.cached(`trace_transaction:${mined.context.location!.transactionHash}`, async () => {
    const record = await tracer.recordTransaction(mined, TRACE_ONLY);
    return renderParityTrace(record, {}, mined.context);
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

/** trace_replayTransaction result of a mined transaction. */
export function transactionReplayResult(tracer: Tracer, hash: Hex, mined: MinedTransaction, types: ParityTraceType[]): Promise<unknown> {
  return tracer.cached(`trace_replayTransaction:${hash}:${types.join(',')}`, async () => {
    const record = await tracer.recordTransaction(mined, needsOfParityTraceTypes(types));
    return renderParityTraceResults(record, types);
  });
}
