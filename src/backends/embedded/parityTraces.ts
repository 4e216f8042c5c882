// Shared by the trace_* handlers: Parity trace entries of mined transactions and blocks (with
// block/transaction locators, cached until a reorg) and replay results for trace types. Results
// are JSON text (RawJson, rendered where the trace ran), which the gateway sends as is.
import type { Block } from '@ethereumjs/block';
import type { ParityTraceType } from '../../engine/render/parityTraceResults.js';
import type { Tracer } from '../../engine/trace/createTracer.js';
import type { JobScope } from '../../engine/trace/traceJob.js';
import { bytesToHex, type Hex } from '../../rpc/hex.js';
import type { RawJson } from '../../rpc/rawJson.js';

/** trace_transaction entries of mined transaction `hash`, as JSON text (ResourceNotFoundError if unknown). */
export function transactionTraceEntries(tracer: Tracer, hash: Hex, scope?: JobScope): Promise<RawJson> {
  return tracer.traceMinedTransaction(hash, 'trace_transaction', { format: 'parityTrace' }, undefined, scope);
}

/** trace_block entries of a block: every transaction's entries in order, as JSON text. */
export function blockTraceEntries(tracer: Tracer, block: Block, scope?: JobScope): Promise<RawJson> {
  return tracer.cached(`trace_block:${bytesToHex(block.hash())}`, () => tracer.traceBlock(block, { format: 'parityTrace' }, undefined, scope));
}

/** trace_replayBlockTransactions results: one `{output, stateDiff, trace, vmTrace, transactionHash}` per transaction. */
export function blockReplayResults(tracer: Tracer, block: Block, types: ParityTraceType[], scope?: JobScope): Promise<RawJson> {
  return tracer.cached(`trace_replayBlock:${bytesToHex(block.hash())}:${types.join(',')}`, () =>
    tracer.traceBlock(block, { format: 'parityResults', types }, undefined, scope),
  );
}

/** trace_replayTransaction result of mined transaction `hash`, as JSON text. */
export function transactionReplayResult(tracer: Tracer, hash: Hex, types: ParityTraceType[], scope?: JobScope): Promise<RawJson> {
  return tracer.traceMinedTransaction(hash, `trace_replayTransaction:${types.join(',')}`, { format: 'parityResults', types }, undefined, scope);
}
