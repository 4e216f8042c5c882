// makeDataDirPrivate on its own, and the data dir of the real CLI: every file 0600 in a 0700 dir,
// an older dir tightened at start with a log line.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { makeDataDirPrivate } from './dataDirModes.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('makeDataDirPrivate', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('behavior: an existing 0755 data dir with 0644 files is tightened and the changes are listed; deeper entries and links are left alone', () => {
    const root = mkdtempSync(join(tmpdir(), 'tracehook-modes-'));
    dirs.push(root);
    const dataDir = join(root, 'data');
    mkdirSync(join(dataDir, 'sub'), { recursive: true });
    for (const f of ['service.sqlite', 'service.sqlite-wal', 'service.sqlite-shm', 'chain.sqlite', 'sub/extra']) writeFileSync(join(dataDir, f), 'x', { mode: 0o644 });
    writeFileSync(join(dataDir, 'secrets.json'), '{}', { mode: 0o600 });
    writeFileSync(join(dataDir, 'run.sh'), '#!/bin/sh', { mode: 0o755 });
    writeFileSync(join(root, 'outside'), 'x', { mode: 0o644 });
    symlinkSync(join(root, 'outside'), join(dataDir, 'link'));
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'sub'), 0o755);
    const changed = makeDataDirPrivate(dataDir);
    expect(changed.map((c) => [c.path.slice(dataDir.length), c.from]).sort()).toEqual([
      ['', '755'],
      ['/chain.sqlite', '644'],
      ['/run.sh', '755'],
      ['/service.sqlite', '644'],
      ['/service.sqlite-shm', '644'],
      ['/service.sqlite-wal', '644'],
      ['/sub', '755'],
    ]);
    expect([dataDir, join(dataDir, 'sub'), join(dataDir, 'run.sh')].map(mode)).toEqual(['700', '700', '700']);
    expect(['service.sqlite', 'service.sqlite-wal', 'service.sqlite-shm', 'chain.sqlite', 'secrets.json'].map((f) => mode(join(dataDir, f)))).toEqual(Array(5).fill('600'));
    // Below the first level nothing changes: the 0700 dir already keeps other users out.
    expect(mode(join(dataDir, 'sub/extra'))).toBe('644');
    // A link is not followed: what it points to outside the data dir keeps its mode.
    expect(mode(join(root, 'outside'))).toBe('644');
    expect(makeDataDirPrivate(dataDir)).toEqual([]);
  });

  it('default: a missing data dir is created 0700', () => {
    const root = mkdtempSync(join(tmpdir(), 'tracehook-modes-'));
    dirs.push(root);
    expect(makeDataDirPrivate(join(root, 'new'))).toEqual([]);
    expect(mode(join(root, 'new'))).toBe('700');
  });
});

describe('data dir modes (real CLI)', () => {
  const roots: string[] = [];
  const running: TracehookProcess[] = [];
  afterAll(async () => {
    for (const p of running) await p.kill('SIGKILL');
    for (const d of roots) rmSync(d, { recursive: true, force: true });
  });
  const start = async (dataDir: string) => {
    const p = await spawnTracehook({ dataDir });
    running.push(p);
    return p;
  };
  const modes = (dataDir: string) =>
    Object.fromEntries([['.', statSync(dataDir).mode & 0o777] as const, ...readdirSync(dataDir).map((f) => [f, statSync(join(dataDir, f)).mode & 0o777] as const)].map(([f, m]) => [f, m.toString(8)]));
  const rpc = async (p: TracehookProcess, method: string) =>
    fetch(p.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });

  it('behavior: the data dir is 0700 and every file in it 0600, and an older dir is tightened at start with a log line', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tracehook-modes-cli-'));
    roots.push(root);
    const dataDir = join(root, 'data');
    const first = await start(dataDir);
    for (let i = 0; i < 2; i++) await rpc(first, 'evm_mine');
    const created = await fetch(`${first.baseUrl}/api/create-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': first.authToken },
      body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: 'http://127.0.0.1:9/hook', addresses: ['0x00000000000000000000000000000000000000a1'] }),
    });
    expect(created.status).toBe(200);
    const live = modes(dataDir);
    expect(Object.keys(live).sort()).toEqual(['.', 'LOCK', 'chain.journal', 'chain.sqlite', 'chain.sqlite-shm', 'chain.sqlite-wal', 'secrets.json', 'service.sqlite', 'service.sqlite-shm', 'service.sqlite-wal']);
    expect(live).toEqual(Object.fromEntries(Object.keys(live).map((f) => [f, f === '.' ? '700' : '600'])));
    await first.kill('SIGKILL');

    // A data dir written by an older version (0755 dir, 0644 files) is tightened before anything opens.
    chmodSync(dataDir, 0o755);
    for (const f of readdirSync(dataDir)) chmodSync(join(dataDir, f), 0o644);
    const second = await start(dataDir);
    expect(second.logs()).toMatch(/"msg":"data dir permissions tightened to 0700\/0600"/);
    expect(second.logs()).toContain(`${join(dataDir, 'service.sqlite')} (was 644)`);
    const tightened = modes(dataDir);
    expect(tightened).toEqual(Object.fromEntries(Object.keys(tightened).map((f) => [f, f === '.' ? '700' : '600'])));
    await second.kill('SIGTERM');
  }, 60_000);

});
