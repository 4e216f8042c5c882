// The chain's writer thread: each mined block's rows (trie nodes, block, receipts, indexes, head
// pointer), recorded on the main thread (store/sqlite/sqlWrites.ts), are written here in one SQLite
// transaction on a connection of its own, in the order they were sent. The main thread keeps mining
// meanwhile; the chain core makes a block the head its readers see only once its write is done.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type EncodedWrites, decodeWrites } from '../../store/sqlite/sqlWrites.js';

/**
 * Runs in the worker (CommonJS, no loader needed), with sqlWrites.ts's decoder. After a failed
 * write it refuses every later one until told to resume: a block's rows must never land without
 * its parent's.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 10000');
const prepared = new Map();
const __name = (f) => f;
const decodeWrites = ${decodeWrites.toString()};
let failed = false;
const writeAll = db.transaction((writes) => {
  decodeWrites(writes, (sql, params) => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    statement.run(...params);
  });
});
parentPort.on('message', (message) => {
  if (message.type === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  if (message.type === 'resume') {
    failed = false;
    return;
  }
  if (failed) {
    parentPort.postMessage({ id: message.id, error: { message: 'not written: an earlier block write failed', skipped: true } });
    return;
  }
  try {
    writeAll(message.writes);
    parentPort.postMessage({ id: message.id });
  } catch (error) {
    failed = true;
    parentPort.postMessage({ id: message.id, error: { message: String((error && error.message) || error), code: error && error.code } });
  }
});
`;

/** A write the writer refused: SQLite's error (its `code`, e.g. SQLITE_FULL), or skipped after one. */
export class ChainWriteError extends Error {
  override name = 'ChainWriteError';
  readonly code: string | undefined;
  /** True when this write was not tried because an earlier one failed. */
  readonly skipped: boolean;
  constructor(message: string, code: string | undefined, skipped: boolean) {
    super(message);
    this.code = code;
    this.skipped = skipped;
  }
}

export interface ChainWriter {
  /** Sends `writes` (their buffer is transferred) to be run in one transaction; settles when they are committed (or refused). */
  write(writes: EncodedWrites): Promise<void>;
  /** Lets the writer take writes again after a refusal (call once every refused write is answered). */
  resume(): void;
  /** Waits for the outstanding writes, then stops the thread and closes its connection. */
  close(): Promise<void>;
}

/** Starts the writer of `filename`, a WAL-mode database that exists (the chain core opened it). */
export function startChainWriter(filename: string): ChainWriter {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath, filename } });
  // Only unanswered writes keep the process alive.
  worker.unref();
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let crashed: Error | undefined;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  function failAll(error: Error): void {
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
    worker.unref();
  }

  worker.on('message', (message: { id: number; error?: { message: string; code?: string; skipped?: boolean } }) => {
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    if (waiting.size === 0) worker.unref();
    if (message.error) entry.reject(new ChainWriteError(message.error.message, message.error.code, message.error.skipped === true));
    else entry.resolve();
  });
  worker.once('error', (error) => {
    crashed = new ChainWriteError(`the chain's writer thread failed: ${error.message}`, undefined, false);
    failAll(crashed);
  });

  return {
    write(writes) {
      if (crashed) return Promise.reject(crashed);
      const id = nextId++;
      const done = new Promise<void>((resolve, reject) => waiting.set(id, { resolve, reject }));
      if (waiting.size === 1) worker.ref();
      worker.postMessage({ type: 'write', id, writes }, [writes.bytes]);
      return done;
    },
    resume() {
      worker.postMessage({ type: 'resume' });
    },
    async close() {
      if (crashed) return;
      worker.ref();
      worker.postMessage({ type: 'close' });
      await exited;
    },
  };
}
