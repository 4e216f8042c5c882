// `--load-state <file>` / `--dump-state <file>` (anvil's flags): reading a state file into the
// embedded chain at start and writing the chain's state at a clean shutdown, with anvil's file
// conventions (plain JSON written, JSON or gzip read; a directory gets `state.json`). The document
// itself is engine/chain/stateDump.ts's, shared with anvil_dumpState/anvil_loadState.
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/loadConfig.js';
import type { DevChain } from '../engine/chain/devChain.js';
import { MAX_DUMP_BYTES, type LoadedStateDump } from '../engine/chain/stateDump.js';
import { parseStateDumpOffThread } from '../engine/chain/stateDumpParsing.js';
import { RpcError } from '../rpc/errors.js';

/** Where a dump goes: the file itself, or `state.json` inside an existing directory (anvil's rule). */
export function dumpStatePath(path: string): string {
  return existsSync(path) && statSync(path).isDirectory() ? join(path, 'state.json') : path;
}

/** Reads `path` and merges its accounts into the chain's working state; ConfigError naming the flag and file when it cannot. */
export async function loadStateFile(chain: Pick<DevChain, 'loadState'>, path: string): Promise<number> {
  let bytes: Buffer;
  try {
    const size = statSync(path).size;
    // Gzip inflates further; the parser bounds that. A plain file is bounded here.
    if (size > MAX_DUMP_BYTES) throw new ConfigError(`--load-state ${path}: the file has ${size} bytes, more than a state file may (${MAX_DUMP_BYTES})`);
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`--load-state ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  let dump: LoadedStateDump;
  try {
    // Read by a worker thread (stateDumpParsing.ts), as anvil_loadState's documents are.
    dump = await parseStateDumpOffThread(bytes);
  } catch (error) {
    // The parser's message names anvil_loadState; the flag is what the user gave.
    const reason = error instanceof RpcError ? error.message.replace(/^anvil_loadState: /, '') : String(error);
    throw new ConfigError(`--load-state ${path}: ${reason}`, { cause: error });
  }
  await chain.loadState(dump);
  return Object.keys(dump.accounts).length;
}

/** Writes the chain's state as anvil's JSON document, atomically (a temporary file renamed over the target). */
export async function dumpStateFile(chain: Pick<DevChain, 'dumpState'>, path: string): Promise<string> {
  const target = dumpStatePath(path);
  const document = await chain.dumpState();
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(document));
  renameSync(temporary, target);
  return target;
}
