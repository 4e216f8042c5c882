// The process as users run it: `npm start` stopped by SIGTERM/SIGINT frees the port and the data
// dir lock (no orphan node left behind), a signal during start-up stops it cleanly too, and
// `--version`. Runs bin/tracehook.js over dist/: `npm run build` first.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../testing/startAnvil.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('process behaviour', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) {
      // npm runs in its own process group: a failed test leaves no node behind either.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    }
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-signals-'));
    dirs.push(dir);
    return dir;
  };

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`behavior: ${signal} to the npm start process stops the service: the port and the data dir lock are free within seconds`, async () => {
      const dataDir = tempDir();
      const port = await freePort();
      // `detached`: its own process group, so the signal goes to npm alone, as `kill <pid>` does.
      const npm = spawn('npm', ['start', '--silent', '--', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'], { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(npm);
      let out = '';
      npm.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
      await waitFor('the banner', () => /^Dev accounts/m.test(out), 60_000);
      expect(await portAccepts(port)).toBe(true);
      expect(existsSync(join(dataDir, 'LOCK'))).toBe(true);
      const exited = new Promise<void>((r) => npm.once('exit', () => r()));
      npm.kill(signal);
      await exited;
      // Before, npm went and node stayed, an orphan holding both.
      await waitFor('the port to close', async () => !(await portAccepts(port)), 5_000);
      await waitFor('the lock to be released', () => !existsSync(join(dataDir, 'LOCK')), 5_000);
    }, 90_000);
  }

  it('behavior: a SIGTERM during start-up stops the service cleanly once it is up (exit 0, lock released)', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'tracehook.js'), 'start', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const exited = new Promise<{ code: number | null; signal: string | null }>((r) => child.once('exit', (code, sig) => r({ code, signal: sig })));
    // The lock is the first thing start-up takes; the chain, stores and server come after it.
    await waitFor('the lock', () => existsSync(join(dataDir, 'LOCK')), 30_000);
    child.kill('SIGTERM');
    // Before, the default action killed it mid-start: exit by signal, lock file left behind.
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dataDir, 'LOCK'))).toBe(false);
    expect(await portAccepts(port)).toBe(false);
  }, 60_000);

  it('args: --version and -V print the package version', () => {
    for (const flag of ['--version', '-V']) {
      const result = spawnSync(process.execPath, [join(repoRoot, 'bin', 'tracehook.js'), flag], { encoding: 'utf8' });
      expect(result.status).toBe(0);
      expect(result.stdout.trim()).toBe(version);
    }
  });
});
