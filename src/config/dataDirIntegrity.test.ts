// Through the real CLI: a start is refused when chain.sqlite or service.sqlite was lost (exit code 1,
// the file and the way out named), unless --accept-data-loss.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { checkFollowerCursor, checkServiceStore } from './dataDirIntegrity.js';

const dirs: string[] = [];
const running: TracehookProcess[] = [];
afterAll(async () => {
  for (const p of running) await p.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDataDir(): string {
  const root = mkdtempSync(join(tmpdir(), 'tracehook-datadir-'));
  dirs.push(root);
  return join(root, 'data');
}

async function start(dataDir: string, args: string[] = []): Promise<TracehookProcess> {
  const p = await spawnTracehook({ dataDir, args });
  running.push(p);
  return p;
}

/** The exit code and stderr of a start that is expected to fail. */
async function refusedStart(dataDir: string): Promise<string> {
  const error = await start(dataDir).then(
    () => null,
    (e: Error) => e,
  );
  expect(error).not.toBeNull();
  return error!.message;
}

/** A clean stop: one answered request first, so the signal handlers installed after the banner are in place. */
async function stop(p: TracehookProcess): Promise<number | null> {
  await fetch(`${p.baseUrl}/healthz`);
  return p.kill('SIGTERM');
}

async function rpc(p: TracehookProcess, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(p.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}

/** Mines `n` blocks and gives the follower (woken by each new head) time to process them. */
async function mine(p: TracehookProcess, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await rpc(p, 'evm_mine');
  await new Promise((r) => setTimeout(r, 500));
}

describe('data dir (real CLI)', () => {
  it('error: a deleted chain.sqlite or service.sqlite refuses the start with exit code 1 until --accept-data-loss', async () => {
    const dataDir = tempDataDir();
    const first = await start(dataDir);
    await mine(first, 3);
    expect(await stop(first)).toBe(0);

    for (const f of ['chain.sqlite', 'chain.sqlite-wal', 'chain.sqlite-shm']) rmSync(join(dataDir, f), { force: true });
    const refusal = await refusedStart(dataDir);
    expect(refusal).toMatch(/^tracehook exited with 1: /);
    expect(refusal).toMatch(/last processed block [1-3] \(0x[0-9a-f]{64}\)/);
    expect(refusal).toContain(`which ${join(dataDir, 'chain.sqlite')} does not hold (its head is block 0)`);
    expect(refusal).toContain('Restore it (with its -wal file) from a backup, or start with --accept-data-loss');
    // Refused again on the next try: the refusal changed nothing.
    expect(await refusedStart(dataDir)).toContain('last processed block');

    const accepted = await start(dataDir, ['--accept-data-loss']);
    expect(accepted.logs()).toContain('accepted data loss: ');
    await mine(accepted, 2);
    expect(await stop(accepted)).toBe(0);
    // Once the follower has caught up with the new chain, a plain start works again.
    const plain = await start(dataDir);
    expect(await stop(plain)).toBe(0);

    for (const f of ['service.sqlite', 'service.sqlite-wal', 'service.sqlite-shm']) rmSync(join(dataDir, f), { force: true });
    const storeRefusal = await refusedStart(dataDir);
    expect(storeRefusal).toMatch(/^tracehook exited with 1: /);
    expect(storeRefusal).toContain(`${join(dataDir, 'service.sqlite')} is missing, but this data dir holds secrets.json and a chain of 2 blocks`);
    expect(readdirSync(dataDir)).not.toContain('service.sqlite');
    const fresh = await start(dataDir, ['--accept-data-loss']);
    expect(fresh.logs()).toContain('accepted data loss: ');
    expect(await stop(fresh)).toBe(0);
  }, 120_000);

  it('args: the checks pass a first start, an intact data dir and PostgreSQL', () => {
    const base = { serviceFile: '/d/service.sqlite', serviceFileExisted: false, secretsExisted: false, chainHead: 0n, acceptDataLoss: false };
    expect(checkServiceStore(base)).toBeNull();
    expect(checkServiceStore({ ...base, secretsExisted: true, chainHead: 5n, serviceFileExisted: true })).toBeNull();
    expect(checkServiceStore({ ...base, secretsExisted: true, chainHead: 5n, serviceFile: null })).toBeNull();
    expect(() => checkServiceStore({ ...base, secretsExisted: true, chainHead: 5n })).toThrow(/service\.sqlite is missing/);
    const cursor = { cursor: { number: 4n, hash: '0xab' }, chainHasCursorBlock: true, chainFile: '/d/chain.sqlite', chainHead: 4n, acceptDataLoss: false };
    expect(checkFollowerCursor(cursor)).toBeNull();
    expect(checkFollowerCursor({ ...cursor, cursor: null, chainHasCursorBlock: false })).toBeNull();
    expect(checkFollowerCursor({ ...cursor, cursor: { number: -1n, hash: '0x00' }, chainHasCursorBlock: false })).toBeNull();
    expect(() => checkFollowerCursor({ ...cursor, chainHasCursorBlock: false })).toThrow(/last processed block 4/);
  });
});
