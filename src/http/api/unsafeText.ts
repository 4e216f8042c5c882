// Text the management API refuses to store: control characters (C0, DEL, C1) and lone UTF-16
// surrogates, found anywhere in a request body or query string and reported with the field's path (every route of http/api/createApiApp.ts).

/** Top-level body fields holding source text, where tab, LF and CR are ordinary characters. */
const MULTILINE_FIELDS: ReadonlySet<string> = new Set(['graphql_query']);

// Any control character or surrogate: a quick test that lets ordinary text skip the exact scan below.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SUSPECT = /[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/;

/** Why `text` may not be stored, or null. `multiline` text (query source) may hold tab, LF and CR. */
export function unsafeTextProblem(text: string, multiline = false): string | null {
  if (!SUSPECT.test(text)) return null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const control = c <= 0x1f || (c >= 0x7f && c <= 0x9f);
    if (control && !(multiline && (c === 0x09 || c === 0x0a || c === 0x0d))) {
      return `must not contain control characters (U+${c.toString(16).toUpperCase().padStart(4, '0')})`;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const paired = c <= 0xdbff && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff;
      if (!paired) return 'must not contain lone UTF-16 surrogates';
      i++;
    }
  }
  return null;
}

/** Deepest nesting of arrays and objects a management body may have (no route needs more than a few levels). */
export const MAX_BODY_DEPTH = 64;

/**
 * The first string in a parsed JSON body that may not be stored: its path (`addresses[2]`,
 * `graphql_query.query`) and why; or a value nested deeper than MAX_BODY_DEPTH, named by its
 * top-level field (the walk, and zod after it, recurse: 100,000 levels would overflow the stack).
 */
export function findUnsafeText(body: unknown): { field: string; problem: string } | null {
  const tooDeep = `must not nest arrays or objects deeper than ${MAX_BODY_DEPTH} levels`;
  // The path is built only for the string at fault: a body may hold 100,000 addresses.
  const walk = (value: unknown, multiline: boolean, depth = 1): { path: Array<string | number>; problem: string } | null => {
    if (typeof value === 'string') {
      const problem = unsafeTextProblem(value, multiline);
      return problem ? { path: [], problem } : null;
    }
    if (value === null || typeof value !== 'object') return null;
    if (depth > MAX_BODY_DEPTH) return { path: [], problem: tooDeep };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        // Strings inline: the common case of a long list of addresses.
        const found = typeof item === 'string' ? (SUSPECT.test(item) ? walk(item, multiline) : null) : walk(item, multiline, depth + 1);
        if (found) return (found.problem === tooDeep || found.path.unshift(i), found);
      }
      return null;
    }
    for (const [key, child] of Object.entries(value)) {
      const found = walk(child, multiline, depth + 1);
      if (found) return (found.problem === tooDeep || found.path.unshift(key), found);
    }
    return null;
  };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    const found = walk(body, false);
    return found && { field: formatPath(found.path), problem: found.problem };
  }
  for (const [key, child] of Object.entries(body)) {
    const found = walk(child, MULTILINE_FIELDS.has(key), 2);
    if (found) return { field: formatPath([key, ...found.path]), problem: found.problem };
  }
  return null;
}

function formatPath(path: ReadonlyArray<string | number>): string {
  if (path.length === 0) return 'body';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');
}
