// One trace request as plain data (what crosses to a trace worker) and the function that runs it
// on a Tracer: record once, render, and return the JSON text. The main thread builds jobs after
// validation and block/state-root resolution; a worker (or the main thread itself, without a pool)
// runs them with the same recorder and renderers. Every job's frames and steps are charged to one
// budget (the tracer's caps) while they record, and its rendered text is checked against it.
import { createTxFromRLP } from '@ethereumjs/tx';
import { ResourceNotFoundError } from '../../rpc/errors.js';
import { bytesToHex } from '../../rpc/hex.js';
import type { StateOverrides } from '../chain/stateOverrides.js';
import type { BlockOverrides } from '../execute/callBlock.js';
import type { CallRequest } from '../execute/callTransaction.js';
import { createStepBudget, stepCapError } from '../record/stepBudget.js';
import type { RecordNeeds, StepCapPassed } from '../record/types.js';
import type { RenderContext } from '../render/types.js';
import type { Tracer } from './createTracer.js';
import { needsOfRender, renderBlockTraces, renderRecord, type TraceRender } from './traceRender.js';

interface JobBase {
  /** The canonical block the job runs in (a mined transaction's block, or the block calls run on). */
  blockHash: Uint8Array;
  render: TraceRender;
  /** Execution timeout, ms (always an error when passed, never a partial trace). */
  timeoutMs: number;
}

/** A trace request as structured-clonable data. */
export type TraceJob =
  | (JobBase & { kind: 'transaction'; index: number; context: RenderContext })
  | (JobBase & { kind: 'block' })
  | (Omit<JobBase, 'render'> & {
      kind: 'calls';
      /** State root the calls start from (committed: the block's root or the head's working root). */
      stateRoot: Uint8Array;
      txIndex?: number;
      stateOverrides?: StateOverrides;
      blockOverrides?: BlockOverrides;
      calls: { call: CallRequest; render: TraceRender }[];
    })
  | (JobBase & { kind: 'rawTransaction'; stateRoot: Uint8Array; tx: Uint8Array });

async function jobBlock(tracer: Tracer, blockHash: Uint8Array) {
  const block = await tracer.chain.getBlockByHash(blockHash);
  // The block left the canonical chain between the request's lookup and now (evm_revert).
  if (!block) throw new ResourceNotFoundError(`block ${bytesToHex(blockHash)} is no longer canonical`);
  return block;
}

/** Runs `job` on `tracer`; returns one JSON text per call for `calls` jobs, else exactly one. */
export async function runTraceJob(tracer: Tracer, job: TraceJob): Promise<string[]> {
  const budget = createStepBudget(tracer.stepCaps);
  let advice: Record<StepCapPassed, string> | undefined;
  const needsOf = (render: TraceRender): RecordNeeds => {
    const needs = needsOfRender(render, budget);
    advice ??= needs.steps?.bounds?.advice ?? (needs.frames?.kind === 'refuse' ? needs.frames.advice : undefined);
    return needs;
  };
  const texts = await runJobWith(tracer, job, needsOf);
  // The recorder's count follows the step renderers closely (frames roughly); this makes the cap exact.
  if (advice !== undefined && texts.reduce((sum, text) => sum + text.length, 0) > budget.maxBytes) {
    throw stepCapError(budget, 'bytes', advice);
  }
  return texts;
}

async function runJobWith(tracer: Tracer, job: TraceJob, needsOfRender: (render: TraceRender) => RecordNeeds): Promise<string[]> {
  const block = await jobBlock(tracer, job.blockHash);
  switch (job.kind) {
    case 'transaction': {
      const tx = block.transactions[job.index];
      if (!tx) throw new ResourceNotFoundError(`block ${bytesToHex(job.blockHash)} has no transaction ${job.index}`);
      const record = await tracer.recordTransaction({ tx, block, index: job.index, context: job.context }, needsOfRender(job.render), job.timeoutMs);
      return [JSON.stringify(renderRecord(record, job.render, job.context))];
    }
    case 'block': {
      const traces = await tracer.recordBlock(block, needsOfRender(job.render), job.timeoutMs);
      return [JSON.stringify(renderBlockTraces(traces, job.render))];
    }
    case 'calls': {
      const target = { block, stateRoot: job.stateRoot, txIndex: job.txIndex, stateOverrides: job.stateOverrides, blockOverrides: job.blockOverrides };
      const records = await tracer.recordCalls(target, job.calls.map((c) => ({ call: c.call, needs: needsOfRender(c.render) })), job.timeoutMs);
      return records.map((record, i) => JSON.stringify(renderRecord(record, job.calls[i]!.render, { logIndexOffset: 0 })));
    }
    case 'rawTransaction': {
      const tx = createTxFromRLP(job.tx, { common: tracer.chain.common });
      const record = await tracer.recordRawTransaction({ block, stateRoot: job.stateRoot }, tx, needsOfRender(job.render), job.timeoutMs);
      return [JSON.stringify(renderRecord(record, job.render, { logIndexOffset: 0 }))];
    }
  }
}
