// A record parsed from an upstream node's trace output, and what that output could not tell:
// renderers of src/engine/render read the record exactly as they read the embedded engine's, and a
// translation checks first that the parts its format reads are known, so a gap is a clear refusal
// (TranslationGapError) and never invented data.
import type { ExecutionRecord } from '../../engine/record/types.js';
import { TranslationGapError } from '../../rpc/errors.js';

/**
 * Parts of a record an upstream's output may lack.
 * - `logs`: the source has no logs (Parity traces); an empty `logs` arena means "unknown", not "none".
 * - `refund`: the gas refund is unknown, so the root's execution gas before the refund (Parity root
 *   `result.gasUsed`) is too (geth's callTracer reports only the receipt's gas used).
 * - `frameGasUsed`: some frame's gas used is unknown (OpenEthereum-style reverted entries have no `result`).
 * - `revertOutput`: some reverted frame's revert data is unknown (same cause).
 * - `gethErrorText`: some frame's error cannot be told apart finely enough for geth's wording
 *   (Parity's `Out of gas` covers out of gas, the re-entrancy sentry, code deposit and size limits).
 * - `parityErrorText`: some frame's error has no known OpenEthereum wording (an unrecognised text).
 * - `creationMethod`: a create entry without `creationMethod` (OpenEthereum) may be CREATE or CREATE2.
 * - `createAddress`: a reverted CREATE/CREATE2's address (geth's callTracer leaves `to` out of a
 *   failed create; Parity's reverted create `result` shows it).
 */
export type RecordGap = 'logs' | 'refund' | 'frameGasUsed' | 'revertOutput' | 'gethErrorText' | 'parityErrorText' | 'creationMethod' | 'createAddress';

export interface TranslatedRecord {
  record: ExecutionRecord;
  /** Each gap with the reason, naming the frame or field (for the refusal's message). */
  gaps: Map<RecordGap, string>;
}

/** Throws TranslationGapError naming the first of `needed` the record lacks. */
export function requireKnown(method: string, translated: TranslatedRecord, needed: readonly RecordGap[]): void {
  for (const gap of needed) {
    const why = translated.gaps.get(gap);
    if (why !== undefined) throw new TranslationGapError(method, gap, why);
  }
}

/** Adds a gap unless already noted (the first reason is kept). */
export function noteGap(gaps: Map<RecordGap, string>, gap: RecordGap, why: string): void {
  if (!gaps.has(gap)) gaps.set(gap, why);
}
