// Text the management API refuses to store: control characters (C0, DEL, C1) and lone UTF-16
// surrogates, found anywhere in a request body or query string and reported with the field's path.

/** Top-level body fields holding source text, where tab, LF and CR are ordinary characters. */
const MULTILINE_FIELDS: ReadonlySet<string> = new Set(['graphql_query']);

/** Why `text` may not be stored, or null. `multiline` text (query source) may hold tab, LF and CR. */
export function unsafeTextProblem(text: string, multiline = false): string | null {
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

/** The first string in a parsed JSON body that may not be stored: its path (`addresses[2]`, `graphql_query.query`) and why. */
export function findUnsafeText(value: unknown, path = ''): { field: string; problem: string } | null {
  if (typeof value === 'string') {
    const problem = unsafeTextProblem(value, MULTILINE_FIELDS.has(path.split(/[.[]/)[0]!));
    return problem ? { field: path || 'body', problem } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const found = findUnsafeText(child, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}
