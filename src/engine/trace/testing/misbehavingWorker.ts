// Test support: a stand-in trace worker with the real protocol that misbehaves on purpose, so the
// pool's handling of stuck and crashing workers can be tested. Like the real worker it runs one job
// at a time and holds the ones sent meanwhile (a cancel drops a held job and answers it, a withdraw
// gives it back). `transaction` jobs spin forever (never yielding, as a runaway synchronous
// computation would), `block` jobs kill the thread, and `calls` jobs answer with the worker's
// thread id after `timeoutMs / 10` ms, or with the cancellation error at once when the pool
// cancels them.
import { parentPort, threadId } from 'node:worker_threads';
import type { WorkerCancel, WorkerReply, WorkerRequest, WorkerWithdraw } from '../traceWorkerProtocol.js';

const port = parentPort!;
let running: { id: number; timer: NodeJS.Timeout } | undefined;
const held: WorkerRequest[] = [];

function finish(reply: WorkerReply): void {
  running = undefined;
  port.postMessage(reply);
  runNext();
}

function runNext(): void {
  const request = held.shift();
  if (!request) return;
  const { id, job } = request;
  if (job.kind === 'transaction') for (;;);
  if (job.kind === 'block') process.exit(3);
  running = { id, timer: setTimeout(() => finish({ id, ok: true, texts: [String(threadId)] }), job.timeoutMs / 10) };
}

function drop(id: number): boolean {
  const index = held.findIndex((request) => request.id === id);
  if (index >= 0) held.splice(index, 1);
  return index >= 0;
}

port.on('message', (message: WorkerRequest | WorkerCancel | WorkerWithdraw) => {
  if ('cancel' in message) {
    const error = { name: 'ExecutionCancelledError', message: 'execution cancelled: the client disconnected' };
    if (running?.id !== message.cancel) {
      if (drop(message.cancel)) port.postMessage({ id: message.cancel, ok: false, error } satisfies WorkerReply);
      return;
    }
    clearTimeout(running.timer);
    finish({ id: message.cancel, ok: false, error });
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
