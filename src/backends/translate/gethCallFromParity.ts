// geth `debug_traceCall` answers from a Parity-family node's `trace_call`, rendered from the parsed
// record by the embedded engine's renderers: callTracer and flatCallTracer from `trace` (+
// `vmTrace`), prestateTracer `diffMode` from `stateDiff`; and debug_traceTransaction's
// prestateTracer `diffMode` from trace_replayBlockTransactions' `stateDiff`. What the output lacks refuses the answer
// (TranslationGapError, and the router executes instead):
// - the gas used after the refund (geth's root `gasUsed`): Parity gives execution gas before the
//   refund. The refund is zero when the root failed (its journal takes the refund back) or when
//   no SSTORE ran anywhere (`vmTrace` shows every store); otherwise it is unknown.
// - the default (non-diff) prestateTracer lists accounts only read, which no stateDiff shows: not
//   offered at all. diffMode reads a changed account's unchanged fields from the node at the call's
//   block (eth_getBalance, eth_getTransactionCount, eth_getCode).
// State and block overrides and `txIndex` are not translated (trace_call has no such options).
import { renderPrestateTracer } from '../../engine/render/prestateTracer.js';
import type { ExecutionRecord } from '../../engine/record/types.js';
import { InvalidParamsError, ResourceNotFoundError, UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { hexToBytes } from '../../rpc/hex.js';
import { DEFAULT_CALL_GAS } from './gethSources.js';
import { render, type TracerOptions } from './gethFromParity.js';
import { recordFromParityTrace } from './parseParityTrace.js';
import { accountsFromStateDiff, type UnchangedReader } from './parseParityStateDiff.js';
import type { Translation } from './translation.js';
import { noteGap, requireKnown } from './translatedRecord.js';
import { type CallObject, quantity } from './txFacts.js';
import { callFacts, type Upstream } from './upstreamFacts.js';
import { upstreamOutputReader } from './upstreamOutput.js';

const { object } = upstreamOutputReader('trace_call');

type Options = { tracer: string; tracerConfig: { [key: string]: unknown } };

/** The debug_traceCall options when they ask only for what trace_call can show; undefined otherwise. */
function options(value: unknown): Options | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { tracer, tracerConfig, ...rest } = value as { tracer?: unknown; tracerConfig?: unknown; [key: string]: unknown };
  // stateOverrides, blockOverrides, txIndex: nothing trace_call takes.
  if (Object.keys(rest).some((k) => k !== 'timeout')) return undefined;
  if (typeof tracer !== 'string') return undefined;
  if (tracerConfig !== undefined && (typeof tracerConfig !== 'object' || tracerConfig === null)) return undefined;
  return { tracer, tracerConfig: (tracerConfig ?? {}) as { [key: string]: unknown } };
}

function callParam(value: unknown): CallObject & { gas: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidParamsError('debug_traceCall: the call must be an object');
  const call = value as CallObject;
  return { ...call, gas: call.gas ?? DEFAULT_CALL_GAS };
}

/** Whether any frame of a `vmTrace` ran an SSTORE (an op whose `ex.store` is set). */
export function vmTraceStores(vmTrace: unknown): boolean {
  if (typeof vmTrace !== 'object' || vmTrace === null) return true; // unknown: assume it did
  const ops = (vmTrace as { ops?: unknown }).ops;
  if (!Array.isArray(ops)) return true;
  return ops.some((op) => {
    if (typeof op !== 'object' || op === null) return true;
    const { ex, sub } = op as { ex?: { store?: unknown } | null; sub?: unknown };
    if (ex && ex.store !== null && ex.store !== undefined) return true;
    return sub !== null && sub !== undefined && vmTraceStores(sub);
  });
}

const acceptsFrames = (params: readonly unknown[]): boolean => {
  const o = options(params[2]);
  return o !== undefined && (o.tracer === 'callTracer' || o.tracer === 'flatCallTracer');
};

/** debug_traceCall (callTracer, flatCallTracer) from trace_call's `trace` and `vmTrace`. */
export const debugTraceCallFromTraceCall: Translation = {
  method: 'debug_traceCall',
  from: 'parity',
  requires: [{ method: 'trace_call', traceTypes: ['trace'] }],
  optional: [],
  accepts: acceptsFrames,
  async run(params, upstream) {
    const o = options(params[2]) as TracerOptions;
    const sent = callParam(params[0]);
    const answer = object(await upstream('trace_call', [sent, ['trace', 'vmTrace'], params[1] ?? 'latest']), 'result');
    const { tx, floorGas } = callFacts(sent, 0n);
    const translated = recordFromParityTrace({ entries: answer.trace, tx });
    const recorded = translated.record.tx;
    // geth's root gasUsed: the whole gas for an exceptional halt; else intrinsic + execution gas
    // less the refund (none when the root failed or nothing was stored), at least EIP-7623's floor.
    if (recorded.error && recorded.error.kind !== 'revert') recorded.gasUsed = recorded.gasLimit;
    else if (recorded.error || !vmTraceStores(answer.vmTrace)) {
      const used = recorded.intrinsicGas + recorded.executionGasUsed;
      recorded.gasUsed = used > floorGas ? used : floorGas;
    } else noteGap(translated.gaps, 'refund', "the call stored to storage and Parity's trace gives gas before the refund only");
    requireKnown('debug_traceCall', translated, ['refund']);
    return render('debug_traceCall', translated, { logIndexOffset: 0, logs: [] }, o);
  },
};

/** debug_traceCall prestateTracer `diffMode` from trace_call's `stateDiff`. */
export const debugTraceCallPrestateFromStateDiff: Translation = {
  method: 'debug_traceCall',
  from: 'parity',
  requires: [{ method: 'trace_call', traceTypes: ['stateDiff'] }, { method: 'eth_getBalance' }, { method: 'eth_getTransactionCount' }, { method: 'eth_getCode' }],
  optional: [],
  accepts: (params) => {
    const o = options(params[2]);
    return o !== undefined && o.tracer === 'prestateTracer' && o.tracerConfig.diffMode === true;
  },
  async run(params, upstream: Upstream) {
    const o = options(params[2])!;
    const sent = callParam(params[0]);
    const block = params[1] ?? 'latest';
    const answer = object(await upstream('trace_call', [sent, ['stateDiff'], block]), 'result');
    // The call ran on the block's state: an unchanged field is the node's value there.
    const unchanged: UnchangedReader = async (address, fields) => {
      const at = async (field: string) => {
        if (field === 'balance') return quantity(await upstream('eth_getBalance', [address, block]), 'eth_getBalance');
        if (field === 'nonce') return quantity(await upstream('eth_getTransactionCount', [address, block]), 'eth_getTransactionCount');
        const code = await upstream('eth_getCode', [address, block]);
        if (typeof code !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(code)) throw new InvalidParamsError('eth_getCode gave no code');
        return hexToBytes(code as `0x${string}`);
      };
      const values = await Promise.all(fields.map(at));
      return Object.fromEntries(fields.map((f, i) => [f, values[i]]));
    };
    const accounts = await accountsFromStateDiff('debug_traceCall', answer.stateDiff, unchanged);
    return renderPrestateTracer({ accounts } as ExecutionRecord, { ...o.tracerConfig, diffMode: true });
  },
};

/**
 * debug_traceTransaction prestateTracer `diffMode` from trace_replayBlockTransactions' `stateDiff`:
 * the transaction's own diff, and an unchanged field's value before it from the last earlier
 * transaction of the block that changed it, else the node's value at the parent block (the
 * block's system calls touch only storage).
 */
export const debugTraceTransactionPrestateFromStateDiff: Translation = {
  method: 'debug_traceTransaction',
  from: 'parity',
  requires: [
    { method: 'eth_getTransactionByHash' },
    { method: 'trace_replayBlockTransactions', traceTypes: ['stateDiff'] },
    { method: 'eth_getBalance' },
    { method: 'eth_getTransactionCount' },
    { method: 'eth_getCode' },
  ],
  optional: [],
  accepts: (params) => {
    const o = options(params[1]);
    return o !== undefined && o.tracer === 'prestateTracer' && o.tracerConfig.diffMode === true;
  },
  async run(params, upstream: Upstream) {
    const o = options(params[1])!;
    const hash = params[0];
    if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) throw new InvalidParamsError('debug_traceTransaction: transactionHash must be a 32-byte hash');
    const tx = await upstream('eth_getTransactionByHash', [hash]);
    if (tx === null || typeof tx !== 'object') throw new ResourceNotFoundError(`transaction ${hash} not found`);
    const { blockNumber, transactionIndex } = tx as { blockNumber?: unknown; transactionIndex?: unknown };
    if (blockNumber === null || blockNumber === undefined) throw new ResourceNotFoundError(`transaction ${hash} is not mined`);
    const number = quantity(blockNumber, 'blockNumber');
    const index = Number(quantity(transactionIndex, 'transactionIndex'));
    const replays = await upstream('trace_replayBlockTransactions', [`0x${number.toString(16)}`, ['stateDiff']]);
    if (!Array.isArray(replays) || replays.length <= index) throw replayMalformed("the block's replays do not reach the transaction (the chain moved?)");
    const own = object(replays[index], `replays[${index}]`);
    if (typeof own.transactionHash === 'string' && own.transactionHash.toLowerCase() !== hash.toLowerCase()) throw replayMalformed(`replay ${index} is for another transaction (the chain moved?)`);
    const parent = `0x${(number - 1n).toString(16)}`;
    const unchanged: UnchangedReader = async (address, fields) => {
      const out: Partial<Record<'balance' | 'nonce' | 'code', bigint | Uint8Array>> = {};
      for (const field of fields) {
        for (let i = index - 1; i >= 0 && out[field] === undefined; i--) {
          const diff = (object(replays[i], `replays[${i}]`).stateDiff ?? {}) as Record<string, Record<string, unknown>>;
          const entry = Object.entries(diff).find(([k]) => k.toLowerCase() === address)?.[1]?.[field];
          if (entry === undefined || entry === '=') continue;
          const marker = entry as { '+'?: unknown; '-'?: unknown; '*'?: { to?: unknown } };
          const value = marker['+'] ?? marker['*']?.to;
          if (marker['-'] !== undefined) out[field] = field === 'code' ? new Uint8Array(0) : 0n;
          else if (value !== undefined) out[field] = field === 'code' ? hexToBytes(String(value) as `0x${string}`) : quantity(value, field);
        }
        if (out[field] !== undefined) continue;
        if (field === 'balance') out.balance = quantity(await upstream('eth_getBalance', [address, parent]), 'eth_getBalance');
        else if (field === 'nonce') out.nonce = quantity(await upstream('eth_getTransactionCount', [address, parent]), 'eth_getTransactionCount');
        else {
          const code = await upstream('eth_getCode', [address, parent]);
          if (typeof code !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(code)) throw replayMalformed('eth_getCode gave no code');
          out.code = hexToBytes(code as `0x${string}`);
        }
      }
      return out;
    };
    const accounts = await accountsFromStateDiff('debug_traceTransaction', own.stateDiff, unchanged);
    return renderPrestateTracer({ accounts } as ExecutionRecord, { ...o.tracerConfig, diffMode: true });
  },
};

const replayMalformed = (message: string) => new UpstreamTraceMalformedError('trace_replayBlockTransactions', message);
