// A geth tracer's own output parsed into a record and rendered again (issue 13 item 5's round
// trip): callTracer through recordFromCallTracer, prestateTracer `diffMode` through
// accountsFromPrestateDiff. Equal output shows the parsers lose nothing those renderers print; the
// conformance corpus and the fixtures of fixtures/traces run through it.
import type { ExecutionRecord, RecordedTx } from '../../engine/record/types.js';
import { type CallTracerConfig, renderCallTracer } from '../../engine/render/callTracer.js';
import { type FlatCallTracerConfig, renderFlatCallTracer } from '../../engine/render/flatCallTracer.js';
import { type PrestateTracerConfig, renderPrestateTracer } from '../../engine/render/prestateTracer.js';
import type { Json, TxLocation } from '../../engine/render/types.js';
import type { Hex } from '../../rpc/hex.js';
import { recordFromCallTracer } from './parseCallTracer.js';
import { recordFromParityTrace } from './parseParityTrace.js';
import { accountsFromPrestateDiff } from './parsePrestateDiff.js';
import { address, quantity } from './txFacts.js';

type Frame = { [key: string]: unknown };

/** The block index of the first log the callTracer shows (logs of failed frames are never shown). */
function firstShownLogIndex(frame: Frame, parentFailed = false): number | undefined {
  const failed = parentFailed || frame.error !== undefined;
  // geth before 1.14 printed no `index`: its struct's zero value.
  const own = failed ? [] : ((frame.logs as { index?: string }[] | undefined) ?? []).map((l) => Number(BigInt(l.index ?? '0x0')));
  const below = ((frame.calls as Frame[] | undefined) ?? []).map((c) => firstShownLogIndex(c, failed));
  const all = [...own, ...below].filter((n): n is number => n !== undefined);
  return all.length === 0 ? undefined : Math.min(...all);
}

/** callTracer output → record → callTracer output. The root's gas figures stand for the transaction's. */
export function roundTripCallTracer(result: unknown, config: CallTracerConfig): Json {
  const root = result as Frame;
  const tx: RecordedTx = {
    from: address(root.from, 'from'),
    to: root.to === undefined ? undefined : address(root.to, 'to'),
    value: root.value === undefined ? 0n : quantity(root.value, 'value'),
    gasLimit: quantity(root.gas, 'gas'),
    intrinsicGas: 0n,
    gasUsed: quantity(root.gasUsed, 'gasUsed'),
    executionGasUsed: 0n,
    gasPrice: 0n,
    output: new Uint8Array(0),
    error: undefined,
    createdAddress: undefined,
  };
  const { record } = recordFromCallTracer({ trace: result, tx, withLog: config.withLog === true, refundCounter: 0n, floorGas: 0n });
  return renderCallTracer(record, config, { logIndexOffset: firstShownLogIndex(root) ?? 0 });
}

/**
 * flatCallTracer output → record (the Parity-entry parser) → flatCallTracer output. The root
 * entry's gas figures stand for the transaction's (geth prints the transaction's gas and the
 * receipt's gas used there), its block fields for the location.
 */
export function roundTripFlatCallTracer(result: unknown, config: FlatCallTracerConfig): Json {
  const entries = result as Frame[];
  const root = (entries[0] ?? {}) as { action?: Frame; result?: Frame | null; blockHash?: string | null; blockNumber?: number; transactionHash?: string | null; transactionPosition?: number };
  const action = root.action ?? {};
  const tx: RecordedTx = {
    from: address(action.from, 'from'),
    to: action.to === undefined ? undefined : address(action.to, 'to'),
    value: action.value === undefined ? 0n : quantity(action.value, 'value'),
    gasLimit: quantity(action.gas, 'gas'),
    intrinsicGas: 0n,
    gasUsed: root.result?.gasUsed === undefined ? quantity(action.gas, 'gas') : quantity(root.result.gasUsed, 'gasUsed'),
    executionGasUsed: 0n,
    gasPrice: 0n,
    output: new Uint8Array(0),
    error: undefined,
    createdAddress: undefined,
  };
  const { record } = recordFromParityTrace({ entries: result, tx, errorWording: config.convertParityErrors ? 'parity' : 'geth' });
  const location: TxLocation | undefined =
    root.blockHash === undefined && root.transactionHash === undefined
      ? undefined
      : {
          blockHash: root.blockHash as Hex,
          blockNumber: BigInt(root.blockNumber ?? 0),
          transactionHash: root.transactionHash as Hex,
          transactionPosition: root.transactionPosition ?? 0,
        };
  return renderFlatCallTracer(record, config, { logIndexOffset: 0, location });
}

/** prestateTracer default-mode output (every touched account before the transaction) → touched accounts → the same output. */
export function roundTripPrestate(result: unknown, config: PrestateTracerConfig): Json {
  const record = { accounts: accountsFromPrestateDiff({ pre: result, post: {} }) } as ExecutionRecord;
  return renderPrestateTracer(record, { ...config, diffMode: false });
}

/** prestateTracer `diffMode` output → touched accounts → the same output. */
export function roundTripPrestateDiff(result: unknown, config: PrestateTracerConfig): Json {
  const record = { accounts: accountsFromPrestateDiff(result) } as ExecutionRecord;
  return renderPrestateTracer(record, { ...config, diffMode: true });
}
