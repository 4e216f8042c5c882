// A quick byte scan of a request body before JSON.parse: nesting depth, how many values it holds
// and the element count of a top-level array, so pathological bodies (deep nesting, millions of
// tiny values, huge batches) are refused or charged from one cheap pass instead of after a parse
// that can hold the event loop for most of a second.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

export interface JsonShape {
  /** True when some value is nested deeper than `maxDepth` (the scan stopped there). */
  tooDeep: boolean;
  /** True when there are more than `maxValues` values (the scan stopped there). */
  tooManyValues: boolean;
  /** Elements of the top-level array (0 when the body is not an array). */
  topLevelElements: number;
  /**
   * Arrays, objects and separators (`,`) outside strings: about how many values JSON.parse would
   * build, which is what its time grows with (up to `maxDepth`'s stop).
   */
  values: number;
}

/**
 * Scans `body` as JSON text without building anything: brackets inside strings are skipped (UTF-8
 * multi-byte sequences never contain ASCII bytes, so scanning bytes is exact). On malformed text the
 * numbers are estimates; JSON.parse still decides validity afterwards.
 */
export function scanJsonShape(body: Uint8Array, maxDepth: number, maxValues = Number.POSITIVE_INFINITY): JsonShape {
  let depth = 0;
  let inString = false;
  let topIsArray = false;
  let commas = 0;
  let nonEmpty = false;
  let values = 0;
  const n = body.length;
  for (let i = 0; i < n; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      if (depth === 1) nonEmpty = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++values > maxValues) return { tooDeep: false, tooManyValues: true, topLevelElements: 0, values };
      if (depth === 0) topIsArray = c === OPEN_ARRAY;
      else if (depth === 1) nonEmpty = true;
      if (++depth > maxDepth) return { tooDeep: true, tooManyValues: false, topLevelElements: 0, values };
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--;
    } else if (c === COMMA) {
      if (++values > maxValues) return { tooDeep: false, tooManyValues: true, topLevelElements: 0, values };
      if (depth === 1) commas++;
    } else if (depth === 1 && c > 0x20) nonEmpty = true;
  }
  return { tooDeep: false, tooManyValues: false, topLevelElements: topIsArray && nonEmpty ? commas + 1 : 0, values };
}
