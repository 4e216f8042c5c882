// One trace request as plain data (what crosses to a trace worker) and the function that runs it
// on a Tracer: record once, render, and return the JSON text. The main thread builds jobs after
// validation and block/state-root resolution; a worker (or the main thread itself, without a pool)
// runs them with the same recorder and renderers. eth_call / eth_estimateGas run here too (jobs
// `ethCall` and `estimateGas`), so no execution a request can start holds the main thread. Every
// job's frames and steps are charged to one budget (the tracer's caps) while they record, and its
// rendered text is checked against it.
import { createTxFromRLP } from '@ethereumjs/tx';
import { InternalError, ResourceNotFoundError } from '../../rpc/errors.js';
import { bytesToHex, quantityToHex } from '../../rpc/hex.js';
import { type CallEnv, executeCall } from '../chain/callExecution.js';
import { estimateGas } from '../chain/gasEstimation.js';
import type { StateOverrides } from '../chain/stateOverrides.js';
import type { TransactionRequest } from '../chain/transactionRequest.js';
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
  | (JobBase & { kind: 'rawTransaction'; stateRoot: Uint8Array; tx: Uint8Array })
  | (Omit<JobBase, 'render'> & {
      /** eth_call (answer: the output as hex) or eth_estimateGas (answer: the gas as a hex quantity). */
      kind: 'ethCall' | 'estimateGas';
      /** State root the call runs on (the block's root, or the head's working root). */
      stateRoot: Uint8Array;
      request: TransactionRequest;
      overrides?: StateOverrides;
    });

/** Who asked for a job, for the pool's per-key queues, and when to give it up. */
export interface JobScope {
  /** Aborted when the requester is gone: a queued job is dropped, a running one cancelled. */
  signal?: AbortSignal;
  /**
   * The same news without an AbortSignal, read instead of `signal` where present: runs `listener`
   * once when the requester is gone and returns the function that takes it off, or returns
   * undefined (registering nothing) when the requester is gone already. The gateway's call context
   * offers it, so a request whose job runs on the pool makes no AbortSignal (about 3.5 µs with its
   * listener, on the thread that serves HTTP).
   */
  onCancel?(listener: () => void): (() => void) | undefined;
  /** The requester's key (API key id): the pool queues jobs per key and serves keys in turn. */
  clientKey?: string;
  /** The requester's key class (its tier), for the queue depth in /metrics; `internal` when absent. */
  keyClass?: string;
}

/** What runs a job besides the tracer. */
export interface RunJobOptions {
  signal?: AbortSignal;
  /** The chain as calls see it (a worker's reader); `ethCall`/`estimateGas` jobs need it. */
  calls?: CallEnv;
}

async function jobBlock(tracer: Tracer, blockHash: Uint8Array) {
  // The block was canonical when the request named it; a job that runs on it after a rewind
  // answers for that moment, and the tracer does not cache what a rewind made stale.
  const { chain } = tracer;
  const block = await (chain.storedBlock ? chain.storedBlock(blockHash) : chain.getBlockByHash(blockHash));
  // The block left the chain between the request's lookup and now (evm_revert) and is gone.
  if (!block) throw new ResourceNotFoundError(`block ${bytesToHex(blockHash)} is no longer canonical`);
  return block;
}

/** Runs `job` on `tracer`; returns one JSON text per call for `calls` jobs, else exactly one. */
export async function runTraceJob(tracer: Tracer, job: TraceJob, options: RunJobOptions = {}): Promise<string[]> {
  const budget = createStepBudget(tracer.stepCaps);
  let advice: Record<StepCapPassed, string> | undefined;
  const needsOf = (render: TraceRender): RecordNeeds => {
    const needs = needsOfRender(render, budget);
    advice ??= needs.steps?.bounds?.advice ?? (needs.frames?.kind === 'refuse' ? needs.frames.advice : undefined);
    return needs;
  };
  const texts = await runJobWith(tracer, job, needsOf, options);
  // The recorder's count follows the step renderers closely (frames roughly); this makes the cap exact.
  if (advice !== undefined && texts.reduce((sum, text) => sum + text.length, 0) > budget.maxBytes) {
    throw stepCapError(budget, 'bytes', advice);
  }
  return texts;
}

async function runJobWith(tracer: Tracer, job: TraceJob, needsOfRender: (render: TraceRender) => RecordNeeds, options: RunJobOptions): Promise<string[]> {
  const block = await jobBlock(tracer, job.blockHash);
  const { signal } = options;
  switch (job.kind) {
    case 'transaction': {
      const tx = block.transactions[job.index];
      if (!tx) throw new ResourceNotFoundError(`block ${bytesToHex(job.blockHash)} has no transaction ${job.index}`);
      const record = await tracer.recordTransaction({ tx, block, index: job.index, context: job.context }, needsOfRender(job.render), job.timeoutMs, signal);
      return [JSON.stringify(renderRecord(record, job.render, job.context))];
    }
    case 'block': {
      const traces = await tracer.recordBlock(block, needsOfRender(job.render), job.timeoutMs, signal);
      return [JSON.stringify(renderBlockTraces(traces, job.render))];
    }
    case 'calls': {
      const target = { block, stateRoot: job.stateRoot, txIndex: job.txIndex, stateOverrides: job.stateOverrides, blockOverrides: job.blockOverrides };
      const records = await tracer.recordCalls(target, job.calls.map((c) => ({ call: c.call, needs: needsOfRender(c.render) })), job.timeoutMs, signal);
      return records.map((record, i) => JSON.stringify(renderRecord(record, job.calls[i]!.render, { logIndexOffset: 0 })));
    }
    case 'rawTransaction': {
      const tx = createTxFromRLP(job.tx, { common: tracer.chain.common });
      const record = await tracer.recordRawTransaction({ block, stateRoot: job.stateRoot }, tx, needsOfRender(job.render), job.timeoutMs, signal);
      return [JSON.stringify(renderRecord(record, job.render, { logIndexOffset: 0 }))];
    }
    case 'ethCall':
    case 'estimateGas': {
      if (!options.calls) throw new InternalError(undefined, { details: `${job.kind} job without a call environment` });
      const target = { block, stateRoot: job.stateRoot };
      const guard = tracer.guard(job.timeoutMs, signal);
      if (job.kind === 'ethCall') return [bytesToHex(await executeCall(options.calls, job.request, target, job.overrides, guard))];
      return [quantityToHex(await estimateGas(options.calls, job.request, target, job.overrides, guard))];
    }
  }
}
