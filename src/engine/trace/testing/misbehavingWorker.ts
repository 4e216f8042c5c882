// Test support: a stand-in trace worker with the real protocol that misbehaves on purpose, so the
// pool's handling of stuck and crashing workers can be tested. `transaction` jobs spin forever
// (never yielding, as a runaway synchronous computation would), `block` jobs kill the thread, and
// `calls` jobs answer with the worker's thread id after `timeoutMs / 10` ms, or with the
// cancellation error at once when the pool cancels them.
import { parentPort, threadId } from 'node:worker_threads';
import type { WorkerCancel, WorkerReply, WorkerRequest } from '../traceWorkerProtocol.js';

const port = parentPort!;
const timers = new Map<number, NodeJS.Timeout>();
port.on('message', (message: WorkerRequest | WorkerCancel) => {
  if ('cancel' in message) {
    const timer = timers.get(message.cancel);
    if (!timer) return;
    clearTimeout(timer);
    timers.delete(message.cancel);
    const error = { name: 'ExecutionCancelledError', message: 'execution cancelled: the client disconnected' };
    port.postMessage({ id: message.cancel, ok: false, error } satisfies WorkerReply);
    return;
  }
  const { id, job } = message;
  if (job.kind === 'transaction') for (;;);
  if (job.kind === 'block') process.exit(3);
  const reply = () => {
    timers.delete(id);
    port.postMessage({ id, ok: true, texts: [String(threadId)] } satisfies WorkerReply);
  };
  timers.set(id, setTimeout(reply, job.timeoutMs / 10));
});
port.postMessage({ ready: true } satisfies WorkerReply);
