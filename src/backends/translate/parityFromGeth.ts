// Parity `trace_*` answers from a geth-family node (debug_* tracers only): trace_transaction,
// trace_get, trace_block, trace_replayTransaction, trace_replayBlockTransactions and trace_call
// with `trace` and `stateDiff`, each rendered from the parsed record by the embedded engine's
// renderers (renderParityTrace, renderParityTraceResults); trace_filter and trace_callMany build
// on these in their own files.
import { renderParityTrace } from '../../engine/render/parityTrace.js';
import { renderParityTraceResults, type ParityTraceType } from '../../engine/render/parityTraceResults.js';
import type { Json } from '../../engine/render/types.js';
import { InvalidParamsError } from '../../rpc/errors.js';
import { gethRecordOfCall, gethRecordOfTx, gethRecordsOfBlock } from './gethSources.js';
import { acceptsTraceTypes, translatableTraceTypes } from './traceTypes.js';
import type { Translation, UpstreamNeed } from './translation.js';
import { type RecordGap, type TranslatedRecord, requireKnown } from './translatedRecord.js';
import type { CallObject } from './txFacts.js';
import type { MinedTxFacts, Upstream } from './upstreamFacts.js';

/** What Parity `trace` entries read beyond the frames. */
const TRACE_NEEDS: readonly RecordGap[] = ['refund', 'parityErrorText', 'createAddress'];

const tx = (method: string, tracer: UpstreamNeed['tracer'], diffMode = false): UpstreamNeed =>
  diffMode ? { method, tracer, tracerConfig: { diffMode: true } } : { method, tracer };
const TX_FACTS: UpstreamNeed[] = [{ method: 'eth_getTransactionByHash' }, { method: 'eth_getTransactionReceipt' }];
const BLOCK_FACTS: UpstreamNeed[] = [{ method: 'eth_getBlockByNumber' }, { method: 'eth_getBlockByHash' }, { method: 'eth_getBlockReceipts' }];

function hashParam(method: string, value: unknown): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) throw new InvalidParamsError(`${method}: transactionHash must be a 32-byte hash`);
  return value;
}

function traceEntries(method: string, translated: TranslatedRecord, facts: MinedTxFacts): Json[] {
  requireKnown(method, translated, TRACE_NEEDS);
  return renderParityTrace(translated.record, {}, { logIndexOffset: facts.logIndexOffset, location: facts.location });
}

/** The `{output, stateDiff, trace, vmTrace}` result of one transaction or call. */
export function traceCallResults(method: string, translated: TranslatedRecord, types: ParityTraceType[]): { [key: string]: Json } {
  if (types.includes('trace')) requireKnown(method, translated, TRACE_NEEDS);
  return renderParityTraceResults(translated.record, types);
}

async function transactionEntries(method: string, params: readonly unknown[], upstream: Upstream): Promise<Json[]> {
  const { translated, facts } = await gethRecordOfTx(upstream, hashParam(method, params[0]), { state: false, refund: true });
  return traceEntries(method, translated, facts);
}

const always = (): boolean => true;

export const traceTransactionFromGeth: Translation = {
  method: 'trace_transaction',
  from: 'geth',
  requires: [...TX_FACTS, tx('debug_traceTransaction', 'callTracer'), tx('debug_traceTransaction', 'prestateTracer')],
  optional: [tx('debug_traceTransaction', 'js')],
  accepts: always,
  run: (params, upstream) => transactionEntries('trace_transaction', params, upstream),
};

/** trace_get: the entry at a trace address (OpenEthereum's reading, docs/trace-conventions.md), null when none. */
export const traceGetFromGeth: Translation = {
  ...traceTransactionFromGeth,
  method: 'trace_get',
  async run(params, upstream) {
    const indices = params[1];
    if (!Array.isArray(indices) || !indices.every((i) => typeof i === 'string' && /^0x[0-9a-fA-F]+$/.test(i))) {
      throw new InvalidParamsError('trace_get: indices must be a list of hex quantities');
    }
    const wanted = indices.map((i) => Number(BigInt(i as string)));
    const entries = await transactionEntries('trace_get', params, upstream);
    return (
      entries.find((e) => {
        const address = (e as { traceAddress: number[] }).traceAddress;
        return address.length === wanted.length && address.every((n, i) => n === wanted[i]);
      }) ?? null
    );
  },
};

export const traceBlockFromGeth: Translation = {
  method: 'trace_block',
  from: 'geth',
  requires: [...BLOCK_FACTS, tx('debug_traceBlockByHash', 'callTracer'), tx('debug_traceBlockByHash', 'prestateTracer')],
  optional: [tx('debug_traceBlockByHash', 'js')],
  accepts: always,
  async run(params, upstream) {
    const found = await gethRecordsOfBlock(upstream, params[0] ?? 'latest', { state: false, refund: true });
    if (!found) return null;
    return found.records.flatMap((translated, i) => traceEntries('trace_block', translated, found.block.txs[i]!));
  },
};

export const traceReplayTransactionFromGeth: Translation = {
  method: 'trace_replayTransaction',
  from: 'geth',
  requires: [...TX_FACTS, tx('debug_traceTransaction', 'callTracer'), tx('debug_traceTransaction', 'prestateTracer'), tx('debug_traceTransaction', 'prestateTracer', true)],
  optional: [tx('debug_traceTransaction', 'js')],
  accepts: (params) => acceptsTraceTypes(params[1]),
  async run(params, upstream) {
    const types = translatableTraceTypes('trace_replayTransaction', params[1]);
    const { translated } = await gethRecordOfTx(upstream, hashParam('trace_replayTransaction', params[0]), { state: types.includes('stateDiff'), refund: types.includes('trace') });
    return traceCallResults('trace_replayTransaction', translated, types);
  },
};

export const traceReplayBlockTransactionsFromGeth: Translation = {
  method: 'trace_replayBlockTransactions',
  from: 'geth',
  requires: [...BLOCK_FACTS, tx('debug_traceBlockByHash', 'callTracer'), tx('debug_traceBlockByHash', 'prestateTracer'), tx('debug_traceBlockByHash', 'prestateTracer', true)],
  optional: [tx('debug_traceBlockByHash', 'js')],
  accepts: (params) => acceptsTraceTypes(params[1]),
  async run(params, upstream) {
    const types = translatableTraceTypes('trace_replayBlockTransactions', params[1]);
    const found = await gethRecordsOfBlock(upstream, params[0] ?? 'latest', { state: types.includes('stateDiff'), refund: types.includes('trace') });
    if (!found) return null;
    return found.records.map((translated, i) => ({
      ...traceCallResults('trace_replayBlockTransactions', translated, types),
      transactionHash: found.block.txs[i]!.location.transactionHash,
    }));
  },
};

export const traceCallFromGeth: Translation = {
  method: 'trace_call',
  from: 'geth',
  requires: [tx('debug_traceCall', 'callTracer'), tx('debug_traceCall', 'prestateTracer'), tx('debug_traceCall', 'prestateTracer', true)],
  optional: [tx('debug_traceCall', 'js')],
  accepts: (params) => acceptsTraceTypes(params[1]),
  async run(params, upstream) {
    const types = translatableTraceTypes('trace_call', params[1]);
    const call = params[0];
    if (typeof call !== 'object' || call === null || Array.isArray(call)) throw new InvalidParamsError('trace_call: the call must be an object');
    const overrides = params[3];
    if (overrides !== undefined && (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides))) {
      throw new InvalidParamsError('trace_call: stateOverrides must be an object');
    }
    const translated = await gethRecordOfCall(upstream, call as CallObject, params[2] ?? 'latest', { state: types.includes('stateDiff'), refund: types.includes('trace') }, overrides ?? undefined);
    return traceCallResults('trace_call', translated, types);
  },
};
