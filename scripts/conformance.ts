// `npm run conformance -- <dir>`: runs every tracer fixture under <dir> (format:
// ../shared/conformance/README.md) through the recorder and renderers that serve RPC, prints each
// failure with a readable diff, a per-folder table, and last `N passed, N failed`. Exits 1 when
// an in-scope fixture fails.
import { readdirSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FOLDER_RULES, KNOWN_DIFFERENCES, type FolderRule } from './conformance/folders.js';
import { engineCounts, runFixtureFile, type FixtureOutcome } from './conformance/runFixture.js';

export interface FixtureEntry {
  file: string;
  folder: string;
  rule: FolderRule;
  /** Reason, when the fixture is a documented known difference. */
  knownDifference?: string;
}

/** Every `.json` fixture under `root` whose path names a known folder (other JSON files are ignored). */
export function findFixtures(root: string): FixtureEntry[] {
  const out: FixtureEntry[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.json')) {
        // The root itself may be a known folder (`npm run conformance -- fixtures/traces`).
        const segments = [basename(root), ...relative(root, path).split(sep).slice(0, -1)];
        const folderName = [...segments].reverse().find((s) => s in FOLDER_RULES);
        if (!folderName) continue;
        const at = segments.lastIndexOf(folderName);
        const folder = at === 0 ? folderName : segments.slice(1, at + 1).join('/');
        const knownDifference = KNOWN_DIFFERENCES[relative(root, path).split(sep).join('/')];
        out.push({ file: path, folder, rule: FOLDER_RULES[folderName]!, knownDifference });
      }
    }
  };
  walk(root);
  return out;
}

function show(value: unknown): string {
  const text = value === undefined ? '(missing)' : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

function formatFailure(outcome: FixtureOutcome, root: string): string {
  const lines = [`FAIL ${relative(root, outcome.file)}`];
  if (outcome.error) lines.push(`  error: ${outcome.error.split('\n').slice(0, 4).join('\n    ')}`);
  for (const d of (outcome.differences ?? []).slice(0, 20)) {
    lines.push(`  ${d.path}`, `    expected: ${show(d.expected)}`, `    actual:   ${show(d.actual)}`);
  }
  const more = (outcome.differences?.length ?? 0) - 20;
  if (more > 0) lines.push(`  ... and ${more} more differences`);
  return lines.join('\n');
}

function formatTable(outcomes: FixtureOutcome[]): string {
  const folders = new Map<string, { pass: number; fail: number; skip: number; known: number; ms: number; reason?: string }>();
  for (const o of outcomes) {
    const row = folders.get(o.folder) ?? { pass: 0, fail: 0, skip: 0, known: 0, ms: 0 };
    row[o.status]++;
    row.ms += o.ms;
    if (o.status === 'skip') row.reason = o.reason;
    folders.set(o.folder, row);
  }
  const width = Math.max(6, ...[...folders.keys()].map((f) => f.length));
  const lines = [`${'folder'.padEnd(width)}  passed  failed  known  skipped      ms`];
  for (const [folder, r] of [...folders.entries()].sort()) {
    const note = r.reason ? `  out of scope: ${r.reason}` : '';
    const cells = [r.pass, r.fail, r.known, r.skip].map((n, i) => String(n).padStart([6, 6, 5, 7][i]!));
    lines.push(`${folder.padEnd(width)}  ${cells.join('  ')}  ${String(Math.round(r.ms)).padStart(6)}${note}`);
  }
  return lines.join('\n');
}

function formatKnown(outcome: FixtureOutcome, root: string): string {
  return `KNOWN ${relative(root, outcome.file)} (${outcome.differences?.length ?? 0} differences): ${outcome.reason}`;
}

/** Runs all fixtures under `root`; returns the outcomes (in-scope failures have status `fail`). */
export async function runConformance(root: string, onOutcome?: (o: FixtureOutcome) => void): Promise<FixtureOutcome[]> {
  const outcomes: FixtureOutcome[] = [];
  for (const entry of findFixtures(root)) {
    const outcome = await runFixtureFile(entry.file, entry.folder, entry.rule, entry.knownDifference);
    outcomes.push(outcome);
    onOutcome?.(outcome);
  }
  return outcomes;
}

async function main(): Promise<void> {
  const arg = process.argv[2];
  if (!arg) {
    console.error('usage: npm run conformance -- <fixtures dir>');
    process.exit(2);
  }
  const root = resolve(arg);
  const outcomes = await runConformance(root, (o) => {
    if (o.status === 'fail') console.log(`${formatFailure(o, root)}\n`);
    if (o.status === 'known') console.log(`${formatKnown(o, root)}\n`);
  });
  console.log(formatTable(outcomes));
  const passed = outcomes.filter((o) => o.status === 'pass').length;
  const failed = outcomes.filter((o) => o.status === 'fail').length;
  const known = outcomes.filter((o) => o.status === 'known').length;
  const skipped = outcomes.filter((o) => o.status === 'skip').length;
  console.log(`${known} known differences, ${skipped} out of scope (see the table)`);
  console.log(`${passed} passed, ${failed} failed`);
  console.log(`records from the interpreter: ${engineCounts.interpreter}, from ethereumjs: ${engineCounts.ethereumjs}`);
  process.exit(failed > 0 ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
