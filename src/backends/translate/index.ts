// Translation between the trace families through the execution record (issue 13, item 1): upstream
// output parsed into src/engine/record's ExecutionRecord and rendered by src/engine/render, so a
// translated answer equals the embedded engine's field by field. `translations` lists, per wire
// method, the translations that can serve it and what each needs from an upstream; a router picks
// one whose `requires` its upstream's probed capabilities meet and whose `accepts` takes the params.
import {
  debugTraceBlockByHashFromTraceBlock,
  debugTraceBlockByNumberFromTraceBlock,
  debugTraceTransactionFromReplay,
  debugTraceTransactionFromTraceTransaction,
} from './gethFromParity.js';
import { debugTraceCallFromTraceCall, debugTraceCallPrestateFromStateDiff, debugTraceTransactionPrestateFromStateDiff } from './gethCallFromParity.js';
import {
  traceBlockFromGeth,
  traceCallFromGeth,
  traceGetFromGeth,
  traceReplayBlockTransactionsFromGeth,
  traceReplayTransactionFromGeth,
  traceTransactionFromGeth,
} from './parityFromGeth.js';
import { traceCallManyFromGeth } from './traceCallManyFromGeth.js';
import { traceFilterFromGeth } from './traceFilterFromGeth.js';
import type { Translation, UpstreamNeed } from './translation.js';

export type { Translation, Upstream, UpstreamNeed } from './translation.js';
export type { RecordGap, TranslatedRecord } from './translatedRecord.js';
export { recordFromCallTracer } from './parseCallTracer.js';
export { recordFromParityTrace } from './parseParityTrace.js';
export { accountsFromPrestateDiff } from './parsePrestateDiff.js';

const ALL: readonly Translation[] = [
  traceTransactionFromGeth,
  traceGetFromGeth,
  traceBlockFromGeth,
  traceFilterFromGeth,
  traceReplayTransactionFromGeth,
  traceReplayBlockTransactionsFromGeth,
  traceCallFromGeth,
  traceCallManyFromGeth,
  debugTraceTransactionFromTraceTransaction,
  debugTraceTransactionFromReplay,
  debugTraceBlockByNumberFromTraceBlock,
  debugTraceBlockByHashFromTraceBlock,
  debugTraceCallFromTraceCall,
  debugTraceCallPrestateFromStateDiff,
  debugTraceTransactionPrestateFromStateDiff,
];

/** Wire method → the translations that can answer it, preferred first. */
export const translations: ReadonlyMap<string, readonly Translation[]> = ALL.reduce((map, t) => {
  map.set(t.method, [...(map.get(t.method) ?? []), t]);
  return map;
}, new Map<string, Translation[]>());

/**
 * The first translation of `method` that takes `params` and whose every need `has` confirms (a
 * router's view of one upstream's probed capabilities); undefined when none.
 */
export function pickTranslation(method: string, params: readonly unknown[], has: (need: UpstreamNeed) => boolean): Translation | undefined {
  return translations.get(method)?.find((t) => t.accepts(params) && t.requires.every(has));
}
