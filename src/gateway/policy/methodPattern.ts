// Method-name rules keyed by exact name or by a prefix pattern ending in `*` (`trace_*`), shared by
// the tier rules and the compute-unit cost table.

/** A lookup where an exact name wins over the longest matching `prefix*` pattern. */
export interface MethodRules<T> {
  get(method: string): T | undefined;
}

export function createMethodRules<T>(rules: Readonly<Record<string, T>>): MethodRules<T> {
  const exact = new Map<string, T>();
  const prefixes: Array<[string, T]> = [];
  for (const [pattern, value] of Object.entries(rules)) {
    if (pattern.endsWith('*')) prefixes.push([pattern.slice(0, -1), value]);
    else exact.set(pattern, value);
  }
  prefixes.sort((a, b) => b[0].length - a[0].length);
  return {
    get(method) {
      const hit = exact.get(method);
      if (hit !== undefined) return hit;
      for (const [prefix, value] of prefixes) if (method.startsWith(prefix)) return value;
      return undefined;
    },
  };
}
