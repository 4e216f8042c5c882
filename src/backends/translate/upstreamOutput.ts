// Reading an upstream's trace output as untrusted JSON, for every parser of this folder: each
// failure is an UpstreamTraceMalformedError naming the source (callTracer, prestateTracer, trace),
// the place in the output and what is wrong there.
import { UpstreamTraceMalformedError } from '../../rpc/errors.js';

export type Obj = { [key: string]: unknown };

export interface UpstreamOutputReader {
  /** The error for `where` (e.g. `trace[3].action`). */
  malformed(where: string, message: string): UpstreamTraceMalformedError;
  /** `value` as a JSON object, or the error. */
  object(value: unknown, where: string): Obj;
  /** `fn(value)`, whose throw becomes "`name` is not valid" at `where`. */
  parse<T>(where: string, name: string, fn: (v: unknown, f: string) => T, value: unknown): T;
}

export function upstreamOutputReader(source: string): UpstreamOutputReader {
  const malformed = (where: string, message: string) => new UpstreamTraceMalformedError(source, `${where}: ${message}`);
  return {
    malformed,
    object(value, where) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed(where, 'is not an object');
      return value as Obj;
    },
    parse(where, name, fn, value) {
      try {
        return fn(value, name);
      } catch {
        throw malformed(where, `\`${name}\` is not valid`);
      }
    },
  };
}
