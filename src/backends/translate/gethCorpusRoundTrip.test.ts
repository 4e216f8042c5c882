// Issue 13 item 5's round trip over the go-ethereum fixture corpus (../shared/conformance/geth,
// next to the repository, as `npm run conformance` finds it; skipped, and said so, when absent):
// each fixture's expected callTracer, flatCallTracer and prestateTracer output (default and
// diffMode), parsed into a record by translate/ and rendered again by the engine's renderers,
// equals itself under the comparison `npm run conformance` uses for that tracer (the upstream test
// drivers': callTracer through geth's struct shape, flatCallTracer through the loose projection
// where zero equals missing and block locators are dropped, prestateTracer exactly); fixtures whose
// output lacks what a render prints (code left out with `disableCode`) are listed in ABSENT.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { roundTripCallTracer, roundTripFlatCallTracer, roundTripPrestate, roundTripPrestateDiff } from './gethTracerRoundTrip.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
type CompareMode = 'callTracer' | 'flat' | 'exact';
// The conformance runner's comparison (scripts/, outside this project's rootDir: loaded by path).
const { compareResult } = (await import(pathToFileURL(join(repo, 'scripts', 'conformance', 'compare.ts')).href)) as {
  compareResult(mode: CompareMode, expected: unknown, actual: unknown): unknown[];
};
// CONFORMANCE_DIR overrides the place (a git worktree elsewhere than the repository's own folder).
const corpus = join(process.env.CONFORMANCE_DIR ?? join(repo, '..', 'shared', 'conformance'), 'geth');
if (!existsSync(corpus)) console.warn(`SKIPPED: the geth fixture corpus round trip needs ${corpus} (see ../shared/conformance/README.md); it is not in this checkout`);

type Fixture = { file: string; tracerConfig: Record<string, unknown>; result: unknown };

function fixtures(folder: string): Fixture[] {
  const dir = join(corpus, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const json = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { tracerConfig?: Record<string, unknown>; result: unknown };
      return { file: `${folder}/${f}`, tracerConfig: json.tracerConfig ?? {}, result: json.result };
    });
}

const prestate = (result: unknown, config: Record<string, unknown>) => (config.diffMode ? roundTripPrestateDiff(result, config) : roundTripPrestate(result, config));
const FOLDERS: ReadonlyArray<[folder: string, roundTrip: (result: unknown, config: Record<string, unknown>) => unknown, compare: CompareMode]> = [
  ['call_tracer', roundTripCallTracer, 'callTracer'],
  ['call_tracer_withLog', roundTripCallTracer, 'callTracer'],
  ['call_tracer_flat', (result, config) => roundTripFlatCallTracer(withEmptyFieldsFilled(result), config), 'flat'],
  ['prestate_tracer', prestate, 'exact'],
  ['prestate_tracer_with_diff_mode', prestate, 'exact'],
];

/** Fixtures whose output genuinely lacks what a render prints: not a round trip to ask of them. */
const NO_CODE = "`disableCode` leaves the code out: a record without it cannot say the account has code, so no `codeHash` is printed";
const ABSENT: Record<string, string> = {
  'prestate_tracer/disable_code.json': NO_CODE,
  'prestate_tracer/disable_code_and_storage.json': NO_CODE,
  'prestate_tracer_with_diff_mode/create_disable_code.json': NO_CODE,
  'prestate_tracer_with_diff_mode/inner_create_disable_code_and_storage.json': NO_CODE,
};

/**
 * Older geth left an empty call `input` and an empty `result.output` out of flatCallTracer
 * entries (the comparison counts empty as missing already); the parser, which reads a node's
 * output, requires them, so they are filled in as `0x` first.
 */
function withEmptyFieldsFilled(result: unknown): unknown {
  if (!Array.isArray(result)) return result;
  return result.map((raw: { type?: string; action?: Record<string, unknown>; result?: Record<string, unknown> | null }) => {
    const entry = { ...raw };
    if (entry.type === 'call' && entry.action && entry.action.input === undefined) entry.action = { ...entry.action, input: '0x' };
    if (entry.type === 'call' && entry.result && Object.keys(entry.result).length > 0 && entry.result.output === undefined) entry.result = { ...entry.result, output: '0x' };
    return entry;
  });
}

describe.skipIf(!existsSync(corpus))('round trip of the go-ethereum fixture corpus through the record', () => {
  const all = FOLDERS.flatMap(([folder, roundTrip, compare]) => fixtures(folder).map((f) => ({ ...f, roundTrip, compare })));

  it('default: finds every fixture of the five folders', () => {
    expect(all.length).toBeGreaterThanOrEqual(70);
  });

  it('behavior: every fixture comes back equal', () => {
    const failed: { file: string; error?: string; differences?: unknown }[] = [];
    let passed = 0;
    for (const f of all.filter((f) => ABSENT[f.file] === undefined)) {
      try {
        const differences = compareResult(f.compare, f.result, f.roundTrip(f.result, f.tracerConfig));
        if (differences.length === 0) passed++;
        else failed.push({ file: f.file, differences: differences.slice(0, 3) });
      } catch (error) {
        failed.push({ file: f.file, error: error instanceof Error ? error.message : String(error) });
      }
    }
    console.info(`geth corpus round trip: ${passed} of ${all.length} fixtures equal, ${Object.keys(ABSENT).length} not asked (ABSENT)`);
    expect(failed).toEqual([]);
  });
});
