// Starts the real anvil binary (npm @foundry-rs/anvil-linux-amd64) on a free loopback port for
// differential tests and benchmarks, and stops it again. Not part of the published build.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ANVIL_BIN = join(repoRoot, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil');

export interface AnvilProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function waitForRpc(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`anvil did not answer at ${url} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts anvil with its defaults (chain 31337, test mnemonic) plus `args`, on the embedded chain's
 * default hardfork (prague) unless `args` name one: anvil 1.7.1's own default is a later fork.
 */
export async function startAnvil(args: string[] = []): Promise<AnvilProcess> {
  const port = await freePort();
  const fork = args.includes('--hardfork') ? [] : ['--hardfork', 'prague'];
  const child = spawn(ANVIL_BIN, ['--host', '127.0.0.1', '--port', String(port), ...fork, ...args], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitForRpc(url, 15_000);
  return {
    url,
    port,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
