// Entry point of a trace worker thread: opens the chain read-only, builds a tracer over it and
// runs the TraceJobs the pool posts, one reply per job (JSON texts, or the error as plain data).
// The pool (tracePool.ts) owns scheduling, timeouts and replacing a worker that dies.
import { parentPort, workerData } from 'node:worker_threads';
import { openChainReader } from '../chain/chainReader.js';
import { loadKzg } from '../execute/kzgSetup.js';
import { createTracer } from './createTracer.js';
import { runTraceJob } from './traceJob.js';
import { errorToWire, type TraceWorkerData, type WorkerReply, type WorkerRequest } from './traceWorkerProtocol.js';

const data = workerData as TraceWorkerData;
const chain = openChainReader({ dataDir: data.dataDir, chainId: data.chainId, hardfork: data.hardfork, kzg: await loadKzg() });
// Jobs use only the record* methods: the rendered-trace cache and its reorg invalidation stay on
// the main thread.
const tracer = createTracer({ chain, gasCap: data.gasCap, stepCaps: data.stepCaps, maxTimeoutMs: data.maxTimeoutMs });
const port = parentPort!;

port.on('message', (request: WorkerRequest) => {
  const reply = (message: WorkerReply): void => port.postMessage(message);
  runTraceJob(tracer, request.job).then(
    (texts) => reply({ id: request.id, ok: true, texts }),
    (error: unknown) => reply({ id: request.id, ok: false, error: errorToWire(error) }),
  );
});
port.postMessage({ ready: true } satisfies WorkerReply);
