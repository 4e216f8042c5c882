// `tracehook start --processes 2` as a real process tree on a fresh PostgreSQL database (the
// compiled build: run `npm run build` first): both children answer on the one port (each
// connection's /metrics names the pid that served it), the gateway child serves the owner's
// embedded chain, a killed child is restarted, SIGTERM ends every process, and when the primary is
// SIGKILLed its children do not outlive it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { TEST_POSTGRES_URL, postgresReachable } from '../store/testing/openTestDatabases.js';
import { scratchDatabase } from '../store/testing/scratchDatabase.js';

const built = existsSync(fileURLToPath(new URL('../../dist/cli/processCluster.js', import.meta.url)));
const reachable = await postgresReachable();
if (!reachable) console.warn(`\n!!!!! --processes test SKIPPED: no PostgreSQL at ${TEST_POSTGRES_URL} (set TRACEHOOK_TEST_POSTGRES_URL) !!!!!\n`);
if (reachable && !built) throw new Error('--processes test: dist/ has no processCluster.js; run `npm run build` first');

/** GET on a connection of its own (no keep-alive), so node:cluster hands each to a child in turn. */
function getFresh(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}

const servingPid = async (baseUrl: string) => {
  const metrics = await getFresh(`${baseUrl}/metrics`);
  const match = /tracehook_process_info\{pid="(\d+)",role="(\w+)"\}/.exec(metrics);
  if (!match) throw new Error('no tracehook_process_info in /metrics');
  return { pid: Number(match[1]), role: match[2] };
};

/** The pids seen over `connections` fresh connections. */
async function pidsServing(baseUrl: string, connections: number): Promise<Map<number, string>> {
  const seen = new Map<number, string>();
  for (let i = 0; i < connections; i++) {
    const { pid, role } = await servingPid(baseUrl);
    seen.set(pid, role!);
  }
  return seen;
}

/** Running (a zombie, exited but not yet reaped, is not). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The children's pids from the primary's `N processes serving port` log line (owner first). */
const childPids = (logs: string) => {
  const line = logs.split('\n').findLast((l) => l.includes('processes serving port'));
  return [...(line ?? '').matchAll(/(owner|gateway:\d+)=(\d+)/g)].map((m) => Number(m[2]));
};

/** One JSON-RPC call on a connection of its own. */
async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  });
  const body = JSON.parse(text) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

describe.skipIf(!reachable)('tracehook start --processes 2 (node:cluster, PostgreSQL)', () => {
  // One database per deployment: each has its own embedded chain, which the store's cursor follows.
  const scratches = [scratchDatabase('tracehook_procs'), scratchDatabase('tracehook_procs')];
  const dirs: string[] = [];
  const started: TracehookProcess[] = [];
  const startCluster = async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-procs-'));
    const database = scratches[dirs.length]!;
    dirs.push(dataDir);
    const primary = await spawnTracehook({ dataDir, from: 'build', args: ['--processes', '2', '--database-url', database.url, '--trace-workers', '0'] });
    started.push(primary);
    return primary;
  };

  beforeAll(() => Promise.all(scratches.map((s) => s.create())), 30_000);
  afterAll(async () => {
    for (const p of started) {
      await p.kill('SIGKILL');
      for (const pid of childPids(p.logs())) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    await Promise.all(scratches.map((s) => s.drop()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  it('behavior: two pids answer on one port, the gateway child serves the owner\'s chain, a killed child comes back, SIGTERM ends all', async () => {
    const primary = await startCluster();
    const [owner, gateway] = childPids(primary.logs());
    expect(owner).toBeGreaterThan(0);
    expect(gateway).toBeGreaterThan(0);
    expect(primary.child.pid).not.toBe(owner);
    const seen = await pidsServing(primary.baseUrl, 8);
    expect(seen).toEqual(new Map([[owner!, 'all'], [gateway!, 'gateway']]));

    // Transactions over fresh connections (so through both children) land on the one chain.
    const before = BigInt((await rpc(primary.rpcUrl, 'eth_blockNumber')) as string);
    for (let i = 0; i < 4; i++) await rpc(primary.rpcUrl, 'anvil_mine', ['0x1']);
    expect(BigInt((await rpc(primary.rpcUrl, 'eth_blockNumber')) as string)).toBe(before + 4n);

    // A child that dies is restarted (and logged); the port keeps answering meanwhile.
    process.kill(gateway!, 'SIGKILL');
    await until(() => /"member":"gateway:1","pid":\d+,"code":null,"signal":"SIGKILL"[^\n]*process exited; restarting it/.test(primary.logs()), 10_000, 'the restart log');
    expect(await rpc(primary.rpcUrl, 'eth_blockNumber')).toMatch(/^0x/);
    const readyAgain = () => [...primary.logs().matchAll(/"member":"gateway:1","pid":(\d+),"msg":"process ready"/g)].map((m) => Number(m[1]));
    await until(() => readyAgain().length === 2, 40_000, 'the restarted gateway');
    const restarted = readyAgain()[1]!;
    expect(restarted).not.toBe(gateway);
    expect(alive(restarted)).toBe(true);
    expect(await pidsServing(primary.baseUrl, 8)).toEqual(new Map([[owner!, 'all'], [restarted, 'gateway']]));

    // SIGTERM on the primary stops every child cleanly, then the primary.
    expect(await primary.kill('SIGTERM')).toBe(0);
    expect([owner, restarted].filter((pid) => alive(pid!))).toEqual([]);
  }, 120_000);

  it('behavior: a killed owner comes back on the same internal port and the gateway child reaches it; SIGKILL on the primary leaves no child behind', async () => {
    const primary = await startCluster();
    const [owner, gateway] = childPids(primary.logs());
    await rpc(primary.rpcUrl, 'anvil_mine', ['0x3']);
    process.kill(owner!, 'SIGKILL');
    const ownerReady = () => [...primary.logs().matchAll(/"member":"owner","pid":(\d+),"msg":"process ready"/g)].map((m) => Number(m[1]));
    await until(() => ownerReady().length === 2, 40_000, 'the restarted owner');
    const restarted = ownerReady()[1]!;
    // Both children answer from the restarted owner's chain (its blocks survived the kill): fresh
    // connections go to the children in turn, so six answers in a row come from both.
    let inARow = 0;
    const end = Date.now() + 20_000;
    while (inARow < 6) {
      if (Date.now() > end) throw new Error('the children did not all answer after the owner\'s restart');
      try {
        expect(BigInt((await rpc(primary.rpcUrl, 'eth_blockNumber')) as string)).toBeGreaterThanOrEqual(3n);
        inARow++;
      } catch {
        inARow = 0;
        await sleep(200);
      }
    }
    expect(new Set((await pidsServing(primary.baseUrl, 4)).keys())).toEqual(new Set([restarted, gateway]));
    expect(alive(gateway!)).toBe(true);

    const children = [restarted, gateway!];
    await primary.kill('SIGKILL');
    await until(() => children.every((pid) => !alive(pid)), 10_000, 'the children to exit');
  }, 90_000);
});
