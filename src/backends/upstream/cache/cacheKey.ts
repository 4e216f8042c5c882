// Cache keys of the finality-aware cache: a call's method, the hash or number it names, and a
// canonical serialisation of its other params (tracer config: object key order does not matter),
// with long parts hashed so a key stays short whatever the params hold.
import { createHash } from 'node:crypto';

/** JSON text of `value` with object keys sorted at every depth (undefined members left out). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    if (record[key] !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  }
  return `{${parts.join(',')}}`;
}

/** Longest params part kept as text in a key; longer ones are replaced by their SHA-256. */
const MAX_PLAIN_REST = 64;

/**
 * `method|subject|rest`: `subject` is the lowercase hash or the block number the call names,
 * `rest` the canonical JSON of the other params (a SHA-256 digest past 64 characters).
 */
export function cacheKey(method: string, subject: string, rest: readonly unknown[]): string {
  if (rest.length === 0) return `${method}|${subject}`;
  const text = canonicalJson(rest);
  const part = text.length > MAX_PLAIN_REST ? `#${createHash('sha256').update(text).digest('base64url')}` : text;
  return `${method}|${subject}|${part}`;
}
