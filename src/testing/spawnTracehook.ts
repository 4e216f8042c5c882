// Starts `tracehook start` in a child process and reads its banner, for end-to-end tests that need a
// real process to kill and restart (from source, via tsx) and for benchmarks (the compiled build,
// as `npm start` runs it).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { freePort } from './startAnvil.js';

const here = dirname(fileURLToPath(import.meta.url));
const sourceEntry = join(here, 'tracehookMain.ts');
const buildEntry = join(here, '..', '..', 'bin', 'tracehook.js');

export interface TracehookProcess {
  child: ChildProcess;
  rpcUrl: string;
  baseUrl: string;
  authToken: string;
  /** Everything the process wrote to stderr (its logs). */
  logs(): string;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export interface SpawnTracehookOptions {
  dataDir: string;
  port?: number;
  args?: string[];
  env?: Record<string, string>;
  /** `source` (default) runs src/ through tsx; `build` runs bin/tracehook.js over dist/ (run `npm run build` first). */
  from?: 'source' | 'build';
  /**
   * With `from: 'build'`: the `bin/tracehook.js` to run instead of this checkout's (another
   * checkout's, its dist/ built), so a benchmark can compare two builds (bench/abBuilds.bench.ts).
   */
  entry?: string;
  /** Extra Node flags for the child (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /**
   * Stdout line that says the process is up. Default: the service banner's `Dev accounts`; a
   * `--role worker|follower` process prints no URLs (then rpcUrl, baseUrl and authToken are '').
   */
  ready?: RegExp;
}

export async function spawnTracehook(options: SpawnTracehookOptions): Promise<TracehookProcess> {
  const port = options.port ?? (await freePort());
  const entryArgs = options.from === 'build' ? [options.entry ?? buildEntry] : ['--import', 'tsx', sourceEntry];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entryArgs, 'start', '--data-dir', options.dataDir, '--port', String(port), '--log-level', 'info', ...(options.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 60_000;
  const ready = options.ready ?? /^Dev accounts/m;
  while (!ready.test(out)) {
    if (child.exitCode !== null) throw new Error(`tracehook exited with ${child.exitCode}: ${err}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`tracehook did not start: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const rpcUrl = /JSON-RPC\s+(\S+)/.exec(out)?.[1] ?? '';
  const authToken = /X-Service-Token: ([^)\s]+)/.exec(out)?.[1] ?? '';
  return {
    child,
    rpcUrl,
    baseUrl: rpcUrl.replace(/\/v2\/.*$/, ''),
    authToken,
    logs: () => err,
    async kill(signal) {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
