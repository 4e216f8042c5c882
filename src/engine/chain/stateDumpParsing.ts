// Reading an anvil_loadState document (or a `--load-state` file) off the main thread: hex decoding,
// gunzip, JSON.parse and validation of a large dump took the event loop for hundreds of ms at once
// (20,000 accounts: 400 ms on a loaded machine). A worker thread (stateDumpParseWorker.ts) does all
// of it and hands the accounts back in chunks, each a message of its own sent when the main thread
// asks for it, so the main thread only gathers them, a chunk per turn. Small documents are read in
// place, where a worker costs more.
import type { Worker } from 'node:worker_threads';
import { InvalidParamsError } from '../../rpc/errors.js';
import { siblingWorkerUrl, startWorker } from '../../threads/startWorker.js';
import { type LoadedStateDump, parseStateDump } from './stateDump.js';

/** Plain JSON documents under this many bytes are read on the calling thread (under a ms). */
export const INLINE_JSON_BYTES = 8 * 1024;
/** Gzipped ones under this many (gzip shrinks a dump some 30 times). */
export const INLINE_GZIP_BYTES = 256;
/** Accounts per message from the worker. */
export const ACCOUNTS_PER_CHUNK = 500;

/** What the worker posts: chunks of accounts, then done, or an error. */
export type ParseWorkerMessage =
  | { kind: 'accounts'; entries: [string, LoadedStateDump['accounts'][string]][] }
  | { kind: 'done' }
  | { kind: 'invalid'; message: string }
  | { kind: 'failed'; message: string };

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

/** The bytes of anvil_loadState's hex argument; InvalidParamsError when it is not hex data. */
export function stateBytesOf(input: Uint8Array | string): Uint8Array {
  if (typeof input !== 'string') return input;
  if (!HEX_DATA.test(input)) throw new InvalidParamsError('anvil_loadState: expected the state as 0x-prefixed even-length hex data');
  return Buffer.from(input.slice(2), 'hex');
}

/**
 * parseStateDump's result (and its errors: InvalidParamsError naming what is wrong), read by a
 * worker thread unless `input` is small. `input` is the document's bytes or anvil_loadState's hex.
 */
/** Whether `input` is small enough to read in place. */
function readsInPlace(input: Uint8Array | string): boolean {
  const bytes = typeof input === 'string' ? (input.length - 2) / 2 : input.length;
  const gzip = typeof input === 'string' ? input.slice(2, 6).toLowerCase() === '1f8b' : input[0] === 0x1f && input[1] === 0x8b;
  return bytes < (gzip ? INLINE_GZIP_BYTES : INLINE_JSON_BYTES);
}

export async function parseStateDumpOffThread(input: Uint8Array | string): Promise<LoadedStateDump> {
  if (readsInPlace(input)) return parseStateDump(stateBytesOf(input));
  const worker: Worker = startWorker(siblingWorkerUrl(import.meta.url, 'stateDumpParseWorker'));
  const accounts: LoadedStateDump['accounts'] = {};
  try {
    return await new Promise<LoadedStateDump>((resolve, reject) => {
      worker.on('message', (message: ParseWorkerMessage) => {
        switch (message.kind) {
          case 'accounts':
            for (const [key, account] of message.entries) accounts[key] = account;
            // The next chunk is asked for only on the next turn of the loop: one chunk per turn.
            setImmediate(() => worker.postMessage('more'));
            break;
          case 'done':
            resolve({ accounts });
            break;
          case 'invalid':
            reject(new InvalidParamsError(message.message));
            break;
          case 'failed':
            reject(new Error(`anvil_loadState: reading the state failed: ${message.message}`));
            break;
        }
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`anvil_loadState: the state reader stopped (exit code ${code})`)));
      // A string is copied to the worker; bytes are copied into a buffer of their own and moved.
      if (typeof input === 'string') worker.postMessage(input);
      else {
        const own = new Uint8Array(input);
        worker.postMessage(own, [own.buffer]);
      }
    });
  } finally {
    void worker.terminate();
  }
}
