// Checkpoints a SQLite database's WAL from a worker thread: copying a large WAL into the database
// file takes tens to hundreds of milliseconds, which SQLite's automatic checkpoint would spend on
// the main thread inside the COMMIT that crossed the threshold, stalling every client.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Runs in the worker (CommonJS, no loader needed): its own connection, a PASSIVE checkpoint per tick. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.filename, { fileMustExist: true });
// A full disk (the database file cannot grow) is passing: the next tick tries again once space is
// back. Anything else ends the worker, and the main connection checkpoints instead.
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    if (!error || error.code !== 'SQLITE_FULL') throw error;
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointerOptions {
  /** Time between checkpoints. Default 250 ms. */
  intervalMs?: number;
  /** Called once if the worker fails (the caller should fall back to SQLite's own checkpoints). */
  onFailure(error: Error): void;
}

export interface WalCheckpointer {
  /** Stops the worker and closes its connection; call before closing the main connection. */
  close(): Promise<void>;
}

/**
 * Starts the checkpointer of `filename` (a WAL-mode database that exists). The main connection
 * should set `wal_autocheckpoint = 0`. A PASSIVE checkpoint never blocks the main connection's
 * reads or writes; frames a reader still needs are copied by a later tick.
 */
export function startWalCheckpointer(filename: string, options: WalCheckpointerOptions): WalCheckpointer {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath, filename, intervalMs: options.intervalMs ?? 250 } });
  // The checkpointer alone must not keep a process alive.
  worker.unref();
  let closing = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.once('error', (error) => {
    if (!closing) options.onFailure(error);
  });
  return {
    async close() {
      closing = true;
      // Waiting for the exit must keep the process alive (it may be the only thing left to do).
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
