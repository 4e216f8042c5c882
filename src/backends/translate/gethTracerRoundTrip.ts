// A geth tracer's own output parsed into a record and rendered again (issue 13 item 5's round
// trip): callTracer through recordFromCallTracer, prestateTracer `diffMode` through
// accountsFromPrestateDiff. Equal output shows the parsers lose nothing those renderers print; the
// conformance corpus and the fixtures of fixtures/traces run through it.
import type { ExecutionRecord, RecordedTx } from '../../engine/record/types.js';
import { type CallTracerConfig, renderCallTracer } from '../../engine/render/callTracer.js';
import { type PrestateTracerConfig, renderPrestateTracer } from '../../engine/render/prestateTracer.js';
import type { Json } from '../../engine/render/types.js';
import { recordFromCallTracer } from './parseCallTracer.js';
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

/** prestateTracer `diffMode` output → touched accounts → the same output. */
export function roundTripPrestateDiff(result: unknown, config: PrestateTracerConfig): Json {
  const record = { accounts: accountsFromPrestateDiff(result) } as ExecutionRecord;
  return renderPrestateTracer(record, { ...config, diffMode: true });
}
