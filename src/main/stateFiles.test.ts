// --load-state / --dump-state: files written and read as anvil does (a directory gets state.json;
// anvil loads our dump and we load anvil's), corrupt or missing files stop the start with the flag
// and file named, and the real process writes its state at SIGTERM and a second one starts from it.
// The process test runs bin/tracehook.js over dist/: `npm run build` first.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createAddressFromString } from '@ethereumjs/util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, openTempChain, type TempChain } from '../engine/chain/testing/tempChain.js';
import { freePort, startAnvil, type AnvilProcess } from '../testing/startAnvil.js';
import { dumpStateFile, dumpStatePath, loadStateFile } from './stateFiles.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WHALE = '0x4444444444444444444444444444444444444444';
const CODE = '0x6001600055';

/** An account's balance at the chain's head (working state). */
async function balanceOf(chain: TempChain['chain'], address: string): Promise<bigint | undefined> {
  const state = await chain.stateAt((await chain.resolveBlock({ kind: 'tag', tag: 'latest' }))!);
  return (await state.getAccount(createAddressFromString(address)))?.balance;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

describe('state files', () => {
  const chains: TempChain[] = [];
  const anvils: AnvilProcess[] = [];
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = makeTempDir('tracehook-state-');
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const c of chains) await c.dispose();
    for (const a of anvils) await a.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('default: a dump written to a directory (state.json) loads into a new chain and into anvil', async () => {
    const from = await openTempChain();
    chains.push(from);
    const whale = createAddressFromString(WHALE).bytes;
    await from.chain.setBalance(whale, 123456789n);
    await from.chain.setCode(whale, Buffer.from(CODE.slice(2), 'hex'));
    const dir = tempDir();
    expect(dumpStatePath(dir)).toBe(join(dir, 'state.json'));
    const written = await dumpStateFile(from.chain, dir);
    expect(written).toBe(join(dir, 'state.json'));
    const document = JSON.parse(readFileSync(written, 'utf8')) as { accounts: Record<string, { balance: string }> };
    expect(document.accounts[WHALE]?.balance).toBe('0x75bcd15');

    const to = await openTempChain();
    chains.push(to);
    expect(await loadStateFile(to.chain, written)).toBeGreaterThan(1);
    expect(await balanceOf(to.chain, WHALE)).toBe(123456789n);

    const anvil = await startAnvil(['--load-state', written]);
    anvils.push(anvil);
    expect(await rpc(anvil.url, 'eth_getBalance', [WHALE, 'latest'])).toBe('0x75bcd15');
    expect(await rpc(anvil.url, 'eth_getCode', [WHALE, 'latest'])).toBe(CODE);
  }, 30_000);

  it('behavior: a file anvil --dump-state wrote loads here, gzipped too', async () => {
    const file = join(tempDir(), 'anvil.json');
    const anvil = await startAnvil(['--dump-state', file]);
    await rpc(anvil.url, 'anvil_setBalance', [WHALE, '0x2a']);
    await rpc(anvil.url, 'anvil_setStorageAt', [WHALE, '0x1', `0x${'0'.repeat(62)}07`]);
    // anvil writes its file on SIGINT/SIGTERM, not on SIGKILL.
    const exited = new Promise<void>((r) => anvil.child.once('exit', () => r()));
    anvil.child.kill('SIGTERM');
    await exited;
    const target = await openTempChain();
    chains.push(target);
    await loadStateFile(target.chain, file);
    expect(await balanceOf(target.chain, WHALE)).toBe(42n);
    const gz = join(tempDir(), 'anvil.json.gz');
    writeFileSync(gz, gzipSync(readFileSync(file)));
    const again = await openTempChain();
    chains.push(again);
    await loadStateFile(again.chain, gz);
    expect(await balanceOf(again.chain, WHALE)).toBe(42n);
  }, 30_000);

  it('error: missing, corrupt and hostile files are refused naming the flag and the file', async () => {
    const temp = await openTempChain();
    chains.push(temp);
    const dir = tempDir();
    await expect(loadStateFile(temp.chain, join(dir, 'nope.json'))).rejects.toThrow(`--load-state ${join(dir, 'nope.json')}: cannot read the file (ENOENT)`);
    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"accounts": {"0x12": {}}');
    await expect(loadStateFile(temp.chain, corrupt)).rejects.toThrow(`--load-state ${corrupt}: the state is not valid JSON`);
    writeFileSync(corrupt, JSON.stringify({ accounts: { '0x12': {} } }));
    await expect(loadStateFile(temp.chain, corrupt)).rejects.toThrow(/--load-state .*corrupt\.json: invalid state at accounts\.0x12/);
    const bomb = join(dir, 'bomb.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20)));
    await expect(loadStateFile(temp.chain, bomb)).rejects.toThrow(/inflates past/);
    mkdirSync(join(dir, 'adir'));
    await expect(loadStateFile(temp.chain, join(dir, 'adir'))).rejects.toThrow(/cannot read the file \(EISDIR\)/);
  });
});

describe('state files: the process', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const start = async (args: string[]) => {
    const dataDir = makeTempDir('tracehook-state-proc-');
    dirs.push(dataDir);
    const port = await freePort();
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'tracehook.js'), 'start', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn', '--trace-workers', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const url = await Promise.race([
      (async () => {
        for (;;) {
          const m = /^JSON-RPC\s+(\S+)/m.exec(out);
          if (m) return m[1]!;
          await new Promise((r) => setTimeout(r, 25));
        }
      })(),
      exit.then((code) => `exited ${code}: ${err}`),
    ]);
    return { child, url, exit, stderr: () => err };
  };

  it('behavior: --dump-state writes at SIGTERM; --load-state starts another service from it; a corrupt file stops the start', async () => {
    const file = join(makeTempDir('tracehook-state-file-'), 'state.json');
    dirs.push(dirname(file));
    const first = await start(['--dump-state', file]);
    expect(first.url).toMatch(/^http/);
    await rpc(first.url, 'anvil_setBalance', [WHALE, '0xdeadbeef']);
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    expect((JSON.parse(readFileSync(file, 'utf8')) as { accounts: Record<string, { balance: string }> }).accounts[WHALE]?.balance).toBe('0xdeadbeef');

    const second = await start(['--load-state', file]);
    expect(await rpc(second.url, 'eth_getBalance', [WHALE, 'latest'])).toBe('0xdeadbeef');
    second.child.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    writeFileSync(file, 'not json');
    const third = await start(['--load-state', file]);
    expect(third.url).toMatch(/^exited 1: /);
    expect(third.stderr()).toContain(`--load-state ${file}: the state is not valid JSON`);
  }, 90_000);
});
