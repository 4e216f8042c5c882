// Nesting depth of an upstream answer's JSON text, checked before it is used: V8's JSON.parse
// builds any depth, but every later recursive walk (JSON.stringify of a pass-through answer, the
// cache's canonical JSON) overflows the stack on a node's 100,000-level answer, which would end the
// call in an internal error instead of a bad-answer error naming the node.

/**
 * Deepest answer nesting accepted: a callTracer frame tree of the EVM's 1,024 call depth nests
 * about 2,050 levels, so twice that leaves room and stays far inside the stack.
 */
export const MAX_ANSWER_DEPTH = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when `text` nests arrays and objects deeper than `maxDepth` (strings skipped, escapes honoured). */
export function isNestedDeeperThan(text: string, maxDepth: number): boolean {
  // Nesting deeper than maxDepth needs at least 2 × maxDepth characters: short answers skip the scan.
  if (text.length <= 2 * maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
