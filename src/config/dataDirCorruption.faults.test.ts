// Faults in the data dir (issue 18): a corrupt file refuses the start with a clear error naming the
// file, never a silent empty start; the files' contents are left as they were for the operator.
// Through the real CLI on a data dir a first run filled (blocks mined, a webhook created).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';

const root = mkdtempSync(join(tmpdir(), 'tracehook-corrupt-'));
const running: TracehookProcess[] = [];
afterAll(async () => {
  for (const p of running) await p.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

async function rpc(p: TracehookProcess, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(p.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await res.json()) as { result: unknown }).result;
}

/** A start expected to fail: the error spawnTracehook raises carries the process's stderr. */
async function refusedStart(dataDir: string): Promise<string> {
  const outcome = await spawnTracehook({ dataDir }).then(
    (p) => (running.push(p), null),
    (e: Error) => e.message,
  );
  expect(outcome, 'the service started on a corrupt data dir').not.toBeNull();
  return outcome!;
}

describe('corrupt files in the data dir (real CLI)', () => {
  const pristine = join(root, 'pristine');
  beforeAll(async () => {
    const first = await spawnTracehook({ dataDir: pristine });
    running.push(first);
    for (let i = 0; i < 3; i++) await rpc(first, 'evm_mine');
    const res = await fetch(`${first.baseUrl}/api/create-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': first.authToken },
      body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: 'http://127.0.0.1:9/hook', addresses: ['0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c'] }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    await fetch(`${first.baseUrl}/healthz`);
    expect(await first.kill('SIGTERM')).toBe(0);
  });

  /** A copy of the filled data dir with `file` damaged by `damage`. */
  function damaged(name: string, file: string, damage: (bytes: Buffer) => Buffer): { dir: string; before: Buffer } {
    const dir = join(root, name);
    cpSync(pristine, dir, { recursive: true });
    const path = join(dir, file);
    const bytes = damage(readFileSync(path));
    writeFileSync(path, bytes);
    return { dir, before: bytes };
  }
  /** Overwrites the SQLite header (the first 100 bytes), as a torn write or a stray `dd` would. */
  const garbleHeader = (b: Buffer) => Buffer.concat([Buffer.alloc(100, 0x5a), b.subarray(100)]);

  it.each([
    ['service.sqlite', garbleHeader],
    ['chain.sqlite', garbleHeader],
    ['secrets.json', (b: Buffer) => b.subarray(0, Math.floor(b.length / 2))],
  ] as const)('error: a corrupt %s refuses the start, naming the file; the file is left as it was', async (file, damage) => {
    const { dir, before } = damaged(file.replace('.', '-'), file, damage);
    const message = await refusedStart(dir);
    expect(message).toContain(file);
    expect(message).not.toMatch(/\n\s+at .*\(node:|TypeError|undefined is not/);
    expect(readFileSync(join(dir, file)).equals(before)).toBe(true);
  });
});
