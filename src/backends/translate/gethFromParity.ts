// geth `debug_traceTransaction` answers (callTracer, flatCallTracer) from a Parity-family node
// (trace_* only), rendered from the parsed record by the embedded engine's renderers. What Parity
// entries lack refuses the answer (translatedRecord.ts): logs (`withLog`), geth's finer error
// texts, and with OpenEthereum-style entries a reverted frame's gas and data and CREATE versus
// CREATE2. Frames Parity never lists cannot appear (docs/trace-conventions.md, "Translation").
import { renderCallTracer } from '../../engine/render/callTracer.js';
import { renderFlatCallTracer } from '../../engine/render/flatCallTracer.js';
import type { RenderContext, TxLocation } from '../../engine/render/types.js';
import { InvalidParamsError, ResourceNotFoundError } from '../../rpc/errors.js';
import { recordFromParityTrace } from './parseParityTrace.js';
import { placeReceiptLogs } from './receiptLogs.js';
import type { Translation, UpstreamNeed } from './translation.js';
import { type RecordGap, type TranslatedRecord, requireKnown } from './translatedRecord.js';
import { type MinedTxFacts, type Upstream, fetchMinedBlock, fetchMinedTx } from './upstreamFacts.js';
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';

export type TracerOptions = { tracer: 'callTracer' | 'flatCallTracer'; tracerConfig: { [key: string]: unknown } };

/** The options object when it asks for a tracer this translation renders; undefined otherwise. */
function tracerOptions(value: unknown): TracerOptions | undefined {
  if (value === undefined) return { tracer: 'callTracer', tracerConfig: {} };
  if (typeof value !== 'object' || value === null) return undefined;
  const { tracer, tracerConfig } = value as { tracer?: unknown; tracerConfig?: unknown };
  if (tracer !== 'callTracer' && tracer !== 'flatCallTracer') return undefined;
  if (tracerConfig !== undefined && (typeof tracerConfig !== 'object' || tracerConfig === null)) return undefined;
  return { tracer, tracerConfig: (tracerConfig ?? {}) as { [key: string]: unknown } };
}

const flag = (config: { [key: string]: unknown }, name: string): boolean => config[name] === true;

/** A record rendered as callTracer or flatCallTracer, refused first where the record lacks what that output shows. */
export function render(method: string, translated: TranslatedRecord, facts: Pick<MinedTxFacts, 'logIndexOffset' | 'logs'> & { location?: TxLocation }, options: TracerOptions): unknown {
  const ctx: RenderContext = { logIndexOffset: facts.logIndexOffset, location: facts.location };
  const base: RecordGap[] = ['frameGasUsed', 'revertOutput', 'creationMethod'];
  if (options.tracer === 'callTracer') {
    const withLog = flag(options.tracerConfig, 'withLog');
    if (withLog && placeReceiptLogs(translated.record, facts.logs)) translated.gaps.delete('logs');
    requireKnown(method, translated, withLog ? ['logs', 'gethErrorText', ...base] : ['gethErrorText', ...base]);
    return renderCallTracer(translated.record, { withLog, onlyTopCall: flag(options.tracerConfig, 'onlyTopCall') }, ctx);
  }
  const convertParityErrors = flag(options.tracerConfig, 'convertParityErrors');
  requireKnown(method, translated, [convertParityErrors ? 'parityErrorText' : 'gethErrorText', ...base]);
  return renderFlatCallTracer(translated.record, { convertParityErrors, includePrecompiles: flag(options.tracerConfig, 'includePrecompiles') }, ctx);
}

/** Splits trace_block's entries by transaction (reward entries of pre-merge blocks are dropped), checked against the block's transactions. */
function entriesByTransaction(answer: unknown, blockHash: string, hashes: readonly string[]): unknown[][] {
  if (!Array.isArray(answer)) throw new UpstreamTraceMalformedError('trace_block', 'the result is not a list');
  const groups = new Map<string, unknown[]>(hashes.map((h) => [h, []]));
  for (const entry of answer) {
    const { type, transactionHash, blockHash: entryBlock } = (entry ?? {}) as { type?: unknown; transactionHash?: unknown; blockHash?: unknown };
    if (type === 'reward') continue;
    if (entryBlock !== blockHash) throw new UpstreamTraceMalformedError('trace_block', 'an entry names another block (the chain moved?)');
    const group = typeof transactionHash === 'string' ? groups.get(transactionHash) : undefined;
    if (!group) throw new UpstreamTraceMalformedError('trace_block', 'an entry names a transaction outside the block');
    group.push(entry);
  }
  return hashes.map((h) => groups.get(h)!);
}

async function blockFromEntries(method: string, params: readonly unknown[], upstream: Upstream): Promise<unknown> {
  const options = tracerOptions(params[1]);
  if (!options) throw new InvalidParamsError(`${method}: only callTracer and flatCallTracer are translated from trace_*`);
  const block = await fetchMinedBlock(upstream, params[0]);
  if (!block) throw new ResourceNotFoundError(`block ${String(params[0]).slice(0, 80)} not found`);
  if (block.txs.length === 0) return [];
  const hashes = block.txs.map((t) => t.location.transactionHash);
  const groups = entriesByTransaction(await upstream('trace_block', [`0x${block.number.toString(16)}`]), block.hash, hashes);
  // Render every transaction first: one gap refuses the whole block, never a partial answer.
  return block.txs.map((facts, i) => ({
    txHash: facts.location.transactionHash,
    result: render(method, recordFromParityTrace({ entries: groups[i], tx: facts.tx }), facts, options),
  }));
}

function hashParam(value: unknown): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) throw new InvalidParamsError('debug_traceTransaction: transactionHash must be a 32-byte hash');
  return value;
}

async function fromEntries(params: readonly unknown[], upstream: Upstream, entries: (hash: string) => Promise<unknown>): Promise<unknown> {
  const options = tracerOptions(params[1]);
  if (!options) throw new InvalidParamsError('debug_traceTransaction: only callTracer and flatCallTracer are translated from trace_*');
  const hash = hashParam(params[0]);
  // Asked together; an unknown transaction is reported as the lookup's not-found, whatever trace_* says.
  const answered = entries(hash);
  answered.catch(() => undefined);
  const facts = await fetchMinedTx(upstream, hash);
  const answer = await answered;
  const translated = recordFromParityTrace({ entries: answer, tx: facts.tx });
  return render('debug_traceTransaction', translated, facts, options);
}

const FACTS: UpstreamNeed[] = [{ method: 'eth_getTransactionByHash' }, { method: 'eth_getTransactionReceipt' }];
const accepts = (params: readonly unknown[]): boolean => tracerOptions(params[1]) !== undefined;

/** debug_traceTransaction (callTracer, flatCallTracer) from trace_transaction. */
export const debugTraceTransactionFromTraceTransaction: Translation = {
  method: 'debug_traceTransaction',
  from: 'parity',
  requires: [...FACTS, { method: 'trace_transaction' }],
  optional: [],
  accepts,
  run: (params, upstream) => fromEntries(params, upstream, (hash) => upstream('trace_transaction', [hash])),
};

/** debug_traceTransaction (callTracer, flatCallTracer) from trace_replayTransaction's `trace`. */
export const debugTraceTransactionFromReplay: Translation = {
  method: 'debug_traceTransaction',
  from: 'parity',
  requires: [...FACTS, { method: 'trace_replayTransaction', traceTypes: ['trace'] }],
  optional: [],
  accepts,
  run: (params, upstream) =>
    fromEntries(params, upstream, async (hash) => {
      const result = await upstream('trace_replayTransaction', [hash, ['trace']]);
      return typeof result === 'object' && result !== null ? (result as { trace?: unknown }).trace : undefined;
    }),
};

const BLOCK_FACTS: UpstreamNeed[] = [{ method: 'eth_getBlockByNumber' }, { method: 'eth_getBlockByHash' }, { method: 'eth_getBlockReceipts' }, { method: 'trace_block' }];

/** debug_traceBlockByNumber (callTracer, flatCallTracer) from trace_block. */
export const debugTraceBlockByNumberFromTraceBlock: Translation = {
  method: 'debug_traceBlockByNumber',
  from: 'parity',
  requires: BLOCK_FACTS,
  optional: [],
  accepts,
  run: (params, upstream) => blockFromEntries('debug_traceBlockByNumber', params, upstream),
};

/** debug_traceBlockByHash (callTracer, flatCallTracer) from trace_block (by the block's number, checked against its hash). */
export const debugTraceBlockByHashFromTraceBlock: Translation = {
  ...debugTraceBlockByNumberFromTraceBlock,
  method: 'debug_traceBlockByHash',
  run: (params, upstream) => blockFromEntries('debug_traceBlockByHash', params, upstream),
};
