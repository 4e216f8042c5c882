// Worker thread of stateDumpParsing.ts: takes one document (bytes, or anvil_loadState's hex), reads
// it with parseStateDump and posts its accounts back in chunks, then `done` (or why it could not).
// Each chunk after the first waits for the main thread's `more`: messages that queue up are all
// read in one turn of the main thread's loop (six chunks of 500 accounts held it ~30 ms at once).
import { parentPort } from 'node:worker_threads';
import { InvalidParamsError } from '../../rpc/errors.js';
import { parseStateDump } from './stateDump.js';
import { ACCOUNTS_PER_CHUNK, type ParseWorkerMessage, stateBytesOf } from './stateDumpParsing.js';

const port = parentPort!;
const asked = () => new Promise<void>((resolve) => port.once('message', () => resolve()));

port.once('message', async (input: Uint8Array | string) => {
  let message: ParseWorkerMessage;
  try {
    const { accounts } = parseStateDump(stateBytesOf(input));
    let entries: [string, (typeof accounts)[string]][] = [];
    for (const key in accounts) {
      entries.push([key, accounts[key]!]);
      if (entries.length === ACCOUNTS_PER_CHUNK) {
        port.postMessage({ kind: 'accounts', entries } satisfies ParseWorkerMessage);
        entries = [];
        await asked();
      }
    }
    if (entries.length > 0) {
      port.postMessage({ kind: 'accounts', entries } satisfies ParseWorkerMessage);
      await asked();
    }
    message = { kind: 'done' };
  } catch (error) {
    message = error instanceof InvalidParamsError ? { kind: 'invalid', message: error.message } : { kind: 'failed', message: String(error) };
  }
  port.postMessage(message);
});
