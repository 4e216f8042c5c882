// Fast paths beside a few hot schemas: a hand-written decoder for the common shape of a parameter
// (a call object of plain hex strings, a block tag) that returns exactly what the schema's parse
// returns, or undefined to let the schema decide (any other shape, and every error). Measured on
// the gateway's main thread, zod's parse of an eth_call/debug_traceCall call object costs 3.5 µs
// in a tight loop and 12-30 µs inside the service, where its many small closures run cache-cold
// between requests; these decoders cost well under a microsecond. The schema stays the definition:
// `fastPath.test.ts` checks that every answer a fast path gives equals the schema's.
import type { z } from 'zod';
import { hexToBytes, isHexDigits, type Hex } from '../hex.js';

/** Decodes `value` as the schema would, or returns undefined to leave it to the schema. */
export type FastParse<T> = (value: unknown) => T | undefined;

const fastPaths = new WeakMap<z.ZodType, FastParse<unknown>>();

/** Registers `fast` as `schema`'s fast path and returns `schema`. */
export function withFastPath<S extends z.ZodType>(schema: S, fast: FastParse<z.output<S>>): S {
  fastPaths.set(schema, fast);
  return schema;
}

/** `schema`'s fast path, if it has one. */
export function fastPathOf<S extends z.ZodType>(schema: S): FastParse<z.output<S>> | undefined {
  return fastPaths.get(schema) as FastParse<z.output<S>> | undefined;
}

const hasPrefix = (text: string): boolean => text.charCodeAt(0) === 48 && text.charCodeAt(1) === 120; // "0x", lowercase only

/** Address's check and output: `0x` and 40 hex digits, lowercased; else undefined. */
export function fastAddress(value: unknown): Hex | undefined {
  if (typeof value !== 'string' || value.length !== 42 || !hasPrefix(value) || !isHexDigits(value, 2, 42)) return undefined;
  return value.toLowerCase() as Hex;
}

/** Quantity's check and output: `0x0` or `0x` and hex digits without a leading zero, as bigint. */
export function fastQuantity(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || value.length < 3 || !hasPrefix(value) || !isHexDigits(value, 2, value.length)) return undefined;
  if (value.charCodeAt(2) === 48 && value.length > 3) return undefined;
  return BigInt(value);
}

/** Data's check and output: `0x` and an even number of hex digits, as bytes. */
export function fastData(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string' || value.length % 2 !== 0 || !hasPrefix(value)) return undefined;
  try {
    return hexToBytes(value);
  } catch {
    return undefined;
  }
}

