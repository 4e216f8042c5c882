// The `traceTypes` parameter of trace_replay*/trace_call for translations: `trace` and
// `stateDiff` can be translated; `vmTrace` needs every opcode, which no translation has.
import type { ParityTraceType } from '../../engine/render/parityTraceResults.js';
import { InvalidParamsError, TranslationGapError } from '../../rpc/errors.js';

/** Validated, de-duplicated trace types (same order as the embedded engine keeps them). */
export function translatableTraceTypes(method: string, value: unknown): ParityTraceType[] {
  if (!Array.isArray(value) || value.length === 0) throw new InvalidParamsError(`${method}: traceTypes must be a non-empty list`);
  const out: ParityTraceType[] = [];
  for (const t of value) {
    if (t !== 'trace' && t !== 'stateDiff' && t !== 'vmTrace') throw new InvalidParamsError(`${method}: unknown trace type ${JSON.stringify(t)?.slice(0, 40)}`);
    if (!out.includes(t)) out.push(t);
  }
  if (out.includes('vmTrace')) throw new TranslationGapError(method, 'vmTrace', 'vmTrace needs every executed opcode, which no upstream tracer translation has');
  return out;
}

/** True for a traceTypes list a translation can serve. */
export function acceptsTraceTypes(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((t) => t === 'trace' || t === 'stateDiff');
}
