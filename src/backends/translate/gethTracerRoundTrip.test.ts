// The round trip over this repository's tracer fixtures (fixtures/traces, Prague, TraceProbe
// scenarios): every callTracer and prestateTracer diffMode result, parsed and rendered again,
// equals itself.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { roundTripCallTracer, roundTripPrestateDiff } from './gethTracerRoundTrip.js';

const dir = new URL('../../../fixtures/traces/', import.meta.url);
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f, ...(JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { tracer: string; tracerConfig?: Record<string, boolean>; result: unknown }) }));

describe('round trip of geth tracer output through the record', () => {
  const calls = fixtures.filter((f) => f.tracer === 'callTracer');
  const diffs = fixtures.filter((f) => f.tracer === 'prestateTracer' && f.tracerConfig?.diffMode);

  it('default: the fixtures hold both kinds', () => {
    expect([calls.length, diffs.length]).toEqual([10, 3]);
  });
  it.each(calls.map((f) => [f.name, f] as const))('behavior: %s', (_name, f) => {
    expect(roundTripCallTracer(f.result, f.tracerConfig ?? {})).toEqual(f.result);
  });
  it.each(diffs.map((f) => [f.name, f] as const))('behavior: %s', (_name, f) => {
    expect(roundTripPrestateDiff(f.result, f.tracerConfig ?? {})).toEqual(f.result);
  });
});
