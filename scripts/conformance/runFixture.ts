// Runs one fixture file through the same recorder and renderers that serve RPC and compares the
// output with the fixture's `result`.
import { readFileSync } from 'node:fs';
import type { KZG } from '@ethereumjs/util';
import { prepareGethFixture, type GethFixture } from '../../src/engine/execute/gethFixture.js';
import { loadKzg as loadProcessKzg } from '../../src/engine/execute/kzgSetup.js';
import { runRecordedTransaction as runOnEthereumjs } from '../../src/engine/execute/runTransaction.js';
import { fastCallsEnabled } from '../../src/engine/interpreter/fastCallSwitch.js';
import { callFieldsOf } from '../../src/engine/interpreter/callFields.js';
import { runFastRecorded } from '../../src/engine/interpreter/fastTrace.js';
import type { ExecutionRecord, RecordNeeds } from '../../src/engine/record/types.js';
import { needsOfGethTracer, renderGethTracer } from '../../src/engine/render/gethTracers.js';
import { renderParityStateDiff } from '../../src/engine/render/parityStateDiff.js';
import { renderParityTrace } from '../../src/engine/render/parityTrace.js';
import { NO_CONTEXT } from '../../src/engine/render/types.js';
import { compareResult, type Difference } from './compare.js';
import { needsOfNamedTracer, renderNamedTracer } from './namedTracer.js';
import type { FolderRule } from './folders.js';

export interface FixtureOutcome {
  file: string;
  folder: string;
  status: 'pass' | 'fail' | 'skip' | 'known';
  differences?: Difference[];
  error?: string;
  reason?: string;
  ms: number;
}

/** Loads a KZG implementation lazily: only blob (type-3) transactions need one to decode. */
export type KzgProvider = () => Promise<KZG>;

export const loadKzg: KzgProvider = loadProcessKzg;

function isBlobTx(input: GethFixture['input']): boolean {
  if (typeof input !== 'string') return false;
  const body = input.startsWith('0x') ? input.slice(2) : input;
  return body.startsWith('03');
}

/** Fixtures whose record came from the interpreter with its built-in recorder, and from ethereumjs. */
export const engineCounts = { interpreter: 0, ethereumjs: 0 };

async function execute(fixture: GethFixture, rule: Extract<FolderRule, { scope: 'in' }>, kzg: KzgProvider): Promise<unknown> {
  const prepared = await prepareGethFixture(fixture, { kzg: isBlobTx(fixture.input) ? await kzg() : undefined });
  const run = { vm: prepared.vm, tx: prepared.tx, block: prepared.block, skipNonce: prepared.isCall };
  // As the service records calls: the interpreter first (TRACEHOOK_FAST_EVM, on by default), then ethereumjs.
  const runRecordedTransaction = async (options: typeof run, needs: RecordNeeds): Promise<ExecutionRecord> => {
    if (fastCallsEnabled()) {
      const fast = await runFastRecorded({ vm: options.vm, tx: callFieldsOf(options.tx), from: options.tx.getSenderAddress(), block: options.block, needs });
      if (fast.record) {
        engineCounts.interpreter++;
        return fast.record;
      }
      needs = fast.fallbackNeeds;
    }
    engineCounts.ethereumjs++;
    return runOnEthereumjs(options, needs);
  };
  if (rule.kind === 'geth') {
    const request = rule.tracer(fixture.tracerConfig ?? {});
    const record = await runRecordedTransaction(run, needsOfGethTracer(request));
    return renderGethTracer(record, request, NO_CONTEXT);
  }
  if (rule.kind === 'named') {
    const name = (fixture as GethFixture & { tracer: string }).tracer;
    const config = fixture.tracerConfig ?? {};
    const record = await runRecordedTransaction(run, needsOfNamedTracer(name, config));
    return renderNamedTracer(record, name, config);
  }
  if (rule.kind === 'parityTrace') {
    const record = await runRecordedTransaction(run, { state: false, steps: undefined });
    return renderParityTrace(record, { style: 'openethereum' }, NO_CONTEXT);
  }
  const record = await runRecordedTransaction(run, { state: true, steps: undefined });
  return renderParityStateDiff(record);
}

/**
 * Runs and compares one fixture file. `knownDifference` (a reason) turns a mismatch into status
 * `known`; a known difference that starts to match is a pass.
 */
export async function runFixtureFile(
  file: string,
  folder: string,
  rule: FolderRule,
  knownDifference?: string,
  kzg: KzgProvider = loadKzg,
): Promise<FixtureOutcome> {
  const started = performance.now();
  if (rule.scope === 'out') return { file, folder, status: 'skip', reason: rule.reason, ms: 0 };
  try {
    const fixture = JSON.parse(readFileSync(file, 'utf8')) as GethFixture;
    const actual = await execute(fixture, rule, kzg);
    const differences = compareResult(rule.compare, fixture.result, actual);
    const ms = performance.now() - started;
    if (differences.length === 0) return { file, folder, status: 'pass', ms };
    if (knownDifference) return { file, folder, status: 'known', differences, reason: knownDifference, ms };
    return { file, folder, status: 'fail', differences, ms };
  } catch (error) {
    return { file, folder, status: 'fail', error: error instanceof Error ? (error.stack ?? error.message) : String(error), ms: performance.now() - started };
  }
}
