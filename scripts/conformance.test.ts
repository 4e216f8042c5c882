// Runs the external conformance corpus (../shared/conformance, when present) through the same
// recorder and renderers that serve RPC and requires every in-scope fixture to pass.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findFixtures, runConformance } from './conformance.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const corpus = join(repo, '..', 'shared', 'conformance');
const ownFixtures = join(repo, 'fixtures', 'traces');

describe('own tracer fixtures (fixtures/traces)', () => {
  it('behavior: every fixture replays on its own pre-state and renders its recorded result', async () => {
    const outcomes = await runConformance(ownFixtures);
    expect(outcomes.length).toBeGreaterThanOrEqual(26);
    const failed = outcomes.filter((o) => o.status !== 'pass').map((o) => ({ file: o.file, error: o.error, diff: o.differences?.slice(0, 3) }));
    expect(failed).toEqual([]);
  }, 60_000);
});

describe.skipIf(!existsSync(corpus))('conformance corpus', () => {
  it('default: finds the in-scope folders', () => {
    const folders = new Set(findFixtures(corpus).filter((f) => f.rule.scope === 'in').map((f) => f.folder));
    expect([...folders].sort()).toEqual([
      'geth/call_tracer',
      'geth/call_tracer_flat',
      'geth/call_tracer_withLog',
      'geth/prestate_tracer',
      'geth/prestate_tracer_with_diff_mode',
      'parity/core-geth/call_tracer_parity',
      'parity/core-geth/state_diff',
    ]);
  });

  it('behavior: every in-scope fixture passes', async () => {
    const outcomes = await runConformance(corpus);
    const failed = outcomes.filter((o) => o.status === 'fail').map((o) => ({ file: o.file, error: o.error, diff: o.differences?.slice(0, 3) }));
    expect(failed).toEqual([]);
    expect(outcomes.filter((o) => o.status === 'pass').length).toBeGreaterThanOrEqual(124);
  }, 180_000);
});
