// Entry point of a trace worker thread: opens the chain read-only, builds a tracer over it and
// runs the TraceJobs the pool posts one after another, one reply per job (JSON texts, or the error
// as plain data); jobs that arrive while one runs wait here in order. A cancel message aborts the
// running job's signal (its execution guard throws at its next check) or drops a waiting job with
// the cancellation error as its answer; a withdraw gives a waiting job back to the pool.
// The pool (tracePool.ts) owns scheduling, timeouts and replacing a worker that dies.
import { parentPort, workerData } from 'node:worker_threads';
import { openChainReader } from '../chain/chainReader.js';
import { loadKzg } from '../execute/kzgSetup.js';
import { createTracer } from './createTracer.js';
import { runTraceJob } from './traceJob.js';
import { callEnvOfReader } from '../chain/callExecution.js';
import { createRemoteTrieNodes } from '../state/remoteTrieNodes.js';
import { errorFromWire, errorToWire, type RemoteCallAnswer, type TraceWorkerData, type WorkerCancel, type WorkerReply, type WorkerRequest, type WorkerWithdraw } from './traceWorkerProtocol.js';
import { ExecutionCancelledError } from '../execute/executionGuard.js';

const data = workerData as TraceWorkerData;
const port = parentPort!;
/** Fork mode: remote calls this worker sent through the pool, by id. */
const remoteCalls = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
let remoteIds = 0;
const remote =
  data.fork &&
  createRemoteTrieNodes({
    fork: data.fork,
    client: {
      call: (method, params) =>
        new Promise((resolve, reject) => {
          const id = ++remoteIds;
          remoteCalls.set(id, { resolve, reject });
          port.postMessage({ remote: id, method, params } satisfies WorkerReply);
        }),
    },
  });
const chain = openChainReader({ dataDir: data.dataDir, chainId: data.chainId, hardfork: data.hardfork, kzg: await loadKzg(), remote, cacheBytes: data.chainCacheBytes });
// Jobs use only the record* methods: the rendered-trace cache and its reorg invalidation stay on
// the main thread.
const tracer = createTracer({ chain, gasCap: data.gasCap, stepCaps: data.stepCaps, maxTimeoutMs: data.maxTimeoutMs });
const calls = callEnvOfReader(chain, data.gasCap);
/** The job this worker runs (its id and abort controller), and the jobs the pool sent to run next. */
let running: { id: number; controller: AbortController } | undefined;
const held: WorkerRequest[] = [];
/**
 * Jobs run one at a time and their signal is only read (`aborted`) while they run, so one controller
 * serves job after job until a cancel aborts it: an AbortSignal costs about 5 µs to make, a few
 * percent of a traced call.
 */
let controller = new AbortController();

function runNext(): void {
  const request = held.shift();
  if (!request) return;
  if (controller.signal.aborted) controller = new AbortController();
  running = { id: request.id, controller };
  const reply = (answer: WorkerReply): void => {
    running = undefined;
    port.postMessage(answer);
    runNext();
  };
  runTraceJob(tracer, request.job, { signal: controller.signal, calls }).then(
    (texts) => reply({ id: request.id, ok: true, texts }),
    (error: unknown) => reply({ id: request.id, ok: false, error: errorToWire(error) }),
  );
}

/** Takes the held job `id` out; false if it is not held (running, or done). */
function drop(id: number): boolean {
  const index = held.findIndex((request) => request.id === id);
  if (index < 0) return false;
  held.splice(index, 1);
  return true;
}

port.on('message', (message: WorkerRequest | WorkerCancel | WorkerWithdraw | RemoteCallAnswer) => {
  if ('remoteReply' in message) {
    const waiting = remoteCalls.get(message.remoteReply);
    remoteCalls.delete(message.remoteReply);
    if (message.ok) waiting?.resolve(message.result);
    else waiting?.reject(errorFromWire(message.error));
    return;
  }
  if ('cancel' in message) {
    if (running?.id === message.cancel) running.controller.abort();
    else if (drop(message.cancel)) port.postMessage({ id: message.cancel, ok: false, error: errorToWire(new ExecutionCancelledError()) } satisfies WorkerReply);
    return;
  }
  if ('withdraw' in message) {
    if (drop(message.withdraw)) port.postMessage({ withdrawn: message.withdraw } satisfies WorkerReply);
    return;
  }
  held.push(message);
  if (!running) runNext();
});
port.postMessage({ ready: true } satisfies WorkerReply);
