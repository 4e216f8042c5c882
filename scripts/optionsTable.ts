// Prints the README's configuration table from config/options.ts:
//   npx tsx scripts/optionsTable.ts
// (src/config/options.test.ts fails when the README misses an option.)
import { optionDefs, envName, flagName, type OptionDef } from '../src/config/options.js';

function dflt(def: OptionDef): string {
  if (def.default === undefined) return '—';
  if (Array.isArray(def.default)) return def.default.length ? `\`${def.default.join(',')}\`` : '—';
  return `\`${String(def.default)}\``;
}

console.log('| Flag | Environment | File key | Default | Meaning |');
console.log('| --- | --- | --- | --- | --- |');
for (const def of optionDefs as readonly OptionDef[]) {
  console.log(`| \`${flagName(def.key)}${def.arg ? ` <${def.arg}>` : ''}\` | \`${envName(def.key)}\` | \`${def.key}\` | ${dflt(def)} | ${def.description} |`);
}
