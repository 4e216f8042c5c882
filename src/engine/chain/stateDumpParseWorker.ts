// Worker thread of stateDumpParsing.ts: takes one document (bytes, or anvil_loadState's hex), reads
// it with parseStateDump and posts its accounts back in chunks, then `done` (or why it could not).
import { parentPort } from 'node:worker_threads';
import { InvalidParamsError } from '../../rpc/errors.js';
import { parseStateDump } from './stateDump.js';
import { ACCOUNTS_PER_CHUNK, type ParseWorkerMessage, stateBytesOf } from './stateDumpParsing.js';

const port = parentPort!;
port.once('message', (input: Uint8Array | string) => {
  let message: ParseWorkerMessage;
  try {
    const { accounts } = parseStateDump(stateBytesOf(input));
    let entries: [string, (typeof accounts)[string]][] = [];
    for (const key in accounts) {
      entries.push([key, accounts[key]!]);
      if (entries.length === ACCOUNTS_PER_CHUNK) {
        port.postMessage({ kind: 'accounts', entries } satisfies ParseWorkerMessage);
        entries = [];
      }
    }
    if (entries.length > 0) port.postMessage({ kind: 'accounts', entries } satisfies ParseWorkerMessage);
    message = { kind: 'done' };
  } catch (error) {
    message = error instanceof InvalidParamsError ? { kind: 'invalid', message: error.message } : { kind: 'failed', message: String(error) };
  }
  port.postMessage(message);
});
