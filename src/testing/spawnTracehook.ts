// Starts `tracehook start` in a child process (from source, via tsx) and reads its banner, for
// end-to-end tests that need a real process to kill and restart.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { freePort } from './startAnvil.js';

const entry = join(dirname(fileURLToPath(import.meta.url)), 'tracehookMain.ts');

export interface TracehookProcess {
  child: ChildProcess;
  rpcUrl: string;
  baseUrl: string;
  authToken: string;
  /** Everything the process wrote to stderr (its logs). */
  logs(): string;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export async function spawnTracehook(options: { dataDir: string; port?: number; args?: string[]; env?: Record<string, string> }): Promise<TracehookProcess> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, ['--import', 'tsx', entry, 'start', '--data-dir', options.dataDir, '--port', String(port), '--log-level', 'info', ...(options.args ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const deadline = Date.now() + 60_000;
  while (!/^Dev accounts/m.test(out)) {
    if (child.exitCode !== null) throw new Error(`tracehook exited with ${child.exitCode}: ${err}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`tracehook did not start: ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const rpcUrl = /JSON-RPC\s+(\S+)/.exec(out)![1]!;
  const authToken = /X-Service-Token: ([^)\s]+)/.exec(out)![1]!;
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
