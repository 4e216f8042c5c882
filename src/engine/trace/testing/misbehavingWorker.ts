// Test support: a stand-in trace worker with the real protocol that misbehaves on purpose, so the
// pool's handling of stuck and crashing workers can be tested. `transaction` jobs spin forever
// (never yielding, as a runaway synchronous computation would), `block` jobs kill the thread, and
// `calls` jobs answer with the worker's thread id after `timeoutMs / 10` ms.
import { parentPort, threadId } from 'node:worker_threads';
import type { WorkerReply, WorkerRequest } from '../traceWorkerProtocol.js';

const port = parentPort!;
port.on('message', ({ id, job }: WorkerRequest) => {
  if (job.kind === 'transaction') for (;;);
  if (job.kind === 'block') process.exit(3);
  setTimeout(() => port.postMessage({ id, ok: true, texts: [String(threadId)] } satisfies WorkerReply), job.timeoutMs / 10);
});
port.postMessage({ ready: true } satisfies WorkerReply);
