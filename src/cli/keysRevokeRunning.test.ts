// `tracehook keys revoke` against a running service, through the real CLI in its own process on the
// same store (SQLite in the data dir, and PostgreSQL): the revoked key is refused within a second.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { TEST_POSTGRES_URL } from '../store/testing/openTestDatabases.js';

const cliEntry = fileURLToPath(new URL('../testing/tracehookMain.ts', import.meta.url));
const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** Runs `tracehook keys …` from source in a child process, as an operator would. */
async function cli(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', cliEntry, 'keys', ...args], { timeout: 60_000 });
  return stdout;
}

async function rpc(url: string): Promise<number> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}' });
  await r.text();
  return r.status;
}

async function revokeWhileRunning(storeArgs: string[]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-revoke-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const service: TracehookProcess = await spawnTracehook({ dataDir, args: storeArgs });
  cleanups.push(async () => void (await service.kill('SIGKILL')));
  const created = JSON.parse(await cli(['create', '--name', 'to revoke', '--tier', 'payg', '--json', '--data-dir', dataDir, ...storeArgs])) as {
    key: { id: string };
    apiKey: string;
  };
  const url = `${service.baseUrl}/v2/${created.apiKey}`;
  expect(await rpc(url)).toBe(200);
  // Keep the key in use (and cached) while the CLI revokes it.
  expect(await rpc(url)).toBe(200);
  expect(await cli(['revoke', created.key.id, '--data-dir', dataDir, ...storeArgs])).toContain(`Revoked API key ${created.key.id}`);
  const revokedAt = Date.now();
  let status = await rpc(url);
  while (status === 200 && Date.now() - revokedAt < 5000) {
    await new Promise((r) => setTimeout(r, 20));
    status = await rpc(url);
  }
  const tookMs = Date.now() - revokedAt;
  expect(status).toBe(403);
  expect(tookMs).toBeLessThan(1000);
  await service.kill('SIGTERM');
}

describe('tracehook keys revoke on a running service', () => {
  it('behavior: a key revoked with the CLI is refused within a second (SQLite in the data dir)', async () => {
    await revokeWhileRunning([]);
  }, 90_000);

  it('behavior: a key revoked with the CLI is refused within a second (PostgreSQL)', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    cleanups.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });
    const url = new URL(TEST_POSTGRES_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    await revokeWhileRunning(['--database-url', url.toString()]);
  }, 90_000);
});
