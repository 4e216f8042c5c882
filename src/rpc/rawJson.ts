// A JSON-RPC result that is already JSON text (a cached rendered trace): the gateway splices the
// text into the response as is, so a warm answer costs no JSON.stringify of a large object.

/**
 * JSON text standing in for a result value. `toJSON` gives the parsed value back, so code that
 * serialises results itself (tests, in-process callers) still sees the same JSON.
 */
export class RawJson {
  /** `text` must be valid JSON (it is spliced unchecked). */
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** `value` serialised once into a RawJson. */
export function toRawJson(value: unknown): RawJson {
  return new RawJson(JSON.stringify(value) ?? 'null');
}

/** The value behind a result that may be RawJson. */
export function rawJsonToValue<T>(result: RawJson | T): T {
  return result instanceof RawJson ? (JSON.parse(result.text) as T) : result;
}
