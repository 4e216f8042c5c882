// Paths as they may appear in logs: only known-safe segments (route names, network names) are kept;
// every other segment (an API key, a token, an id, anything a client typed) becomes `***`, and a
// query string becomes `?***`. A key or token put anywhere in a URL never reaches a log line.

/** Route words of the gateway itself. */
export const SAFE_PATH_SEGMENTS: readonly string[] = ['v2', 'api', 'healthz', 'readyz', 'metrics', 'keys', 'revoke', 'usage', 'openapi.json'];

/** Paths longer than this many segments are cut (`/…`), so a hostile path cannot bloat a log line. */
const MAX_SEGMENTS = 12;

export type PathRedactor = (url: string) => string;

/**
 * A redactor that keeps `safe` segments (exact, case-sensitive) besides SAFE_PATH_SEGMENTS, and
 * segments `isSafe` accepts (e.g. a network name in any spelling that reaches it).
 */
export function createPathRedactor(safe: Iterable<string> = [], isSafe?: (segment: string) => boolean): PathRedactor {
  const words = new Set([...SAFE_PATH_SEGMENTS, ...safe]);
  return (url) => {
    const end = url.search(/[?#]/);
    const path = end === -1 ? url : url.slice(0, end);
    const segments = path.split('/');
    const kept = segments.slice(0, MAX_SEGMENTS + 1).map((s, i) => (i === 0 || s === '' || words.has(s) || isSafe?.(s) ? s : '***'));
    let out = kept.join('/');
    if (segments.length > MAX_SEGMENTS + 1) out += '/…';
    if (end !== -1) out += '?***';
    return out;
  };
}

/** Redacts with the gateway's own route words only. */
export const redactPath: PathRedactor = createPathRedactor();
