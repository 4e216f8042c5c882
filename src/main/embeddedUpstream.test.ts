// The embedded chain in a multi-process setup (issue 17 item 4), with real processes (the compiled
// build: run `npm run build` first) on a fresh PostgreSQL database: `--role all` owns the chain, `--role gateway --embedded-upstream <owner>`
// serves the same LOCAL network through the owner's internal endpoint. A transaction sent through
// the gateway is mined by the owner, traces through the gateway equal the owner's, a newHeads
// subscription on the gateway sees the block, the dashboard's routes answer, and the internal
// endpoint refuses calls without the right credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { TEST_POSTGRES_URL, postgresReachable } from '../store/testing/openTestDatabases.js';
import { scratchDatabase } from '../store/testing/scratchDatabase.js';

const AUTH_TOKEN = 'internal-test-token-0123456789';
const API_KEY = 'embedded-upstream-test-key';
const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const DEV1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

const reachable = await postgresReachable();
if (!reachable) console.warn(`\n!!!!! embedded chain over processes test SKIPPED: no PostgreSQL at ${TEST_POSTGRES_URL} (set TRACEHOOK_TEST_POSTGRES_URL) !!!!!\n`);
if (reachable && !existsSync(fileURLToPath(new URL('../../dist/main/embeddedUpstream.js', import.meta.url)))) throw new Error('embedded chain over processes test: dist/ is not built; run `npm run build` first');

type Answer = { result?: unknown; error?: { code: number; message: string } };

async function rpc(url: string, method: string, params: unknown[] = [], headers: Record<string, string> = {}): Promise<{ status: number; body: Answer }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return { status: res.status, body: (await res.json()) as Answer };
}
const result = async (url: string, method: string, params: unknown[] = []) => {
  const { body } = await rpc(url, method, params);
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
};

describe.skipIf(!reachable)('the embedded chain served by a --role gateway process (--embedded-upstream)', () => {
  const scratch = scratchDatabase('tracehook_embup');
  const dirs: string[] = [];
  let owner: TracehookProcess;
  let gateway: TracehookProcess;

  const spawn = (role: string, extra: string[]) => {
    const dataDir = mkdtempSync(join(tmpdir(), `tracehook-embup-${role}-`));
    dirs.push(dataDir);
    return spawnTracehook({ dataDir, from: 'build', args: ['--role', role, '--database-url', scratch.url, '--auth-token', AUTH_TOKEN, '--dev-api-key', API_KEY, '--trace-workers', '1', ...extra] });
  };

  beforeAll(async () => {
    await scratch.create();
    owner = await spawn('all', []);
    gateway = await spawn('gateway', ['--embedded-upstream', owner.baseUrl]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([owner, gateway].map((p) => p?.kill('SIGKILL')));
    await scratch.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }, 30_000);

  it('behavior: a transaction sent through the gateway is mined by the owner, and the traces through the gateway equal the owner\'s', async () => {
    expect(gateway.logs()).toMatch(/"upstream":"LOCAL#0"[^\n]*"clientVersion":"tracehook\//);
    const hash = (await result(gateway.rpcUrl, 'eth_sendTransaction', [{ from: DEV0, to: DEV1, value: '0x1' }])) as string;
    const receipt = (await result(owner.rpcUrl, 'eth_getTransactionReceipt', [hash])) as { blockNumber: string; status: string };
    expect(receipt.status).toBe('0x1');
    expect(await result(gateway.rpcUrl, 'eth_getTransactionReceipt', [hash])).toEqual(receipt);
    for (const [method, params] of [
      ['trace_transaction', [hash]],
      ['debug_traceTransaction', [hash, { tracer: 'callTracer' }]],
      ['debug_traceTransaction', [hash, {}]],
    ] as const) {
      const atOwner = await result(owner.rpcUrl, method, [...params]);
      expect(atOwner).toBeTruthy();
      expect(await result(gateway.rpcUrl, method, [...params])).toEqual(atOwner);
    }
    // The dev methods reach the owner's chain too.
    const before = BigInt((await result(owner.rpcUrl, 'eth_blockNumber')) as string);
    await result(gateway.rpcUrl, 'anvil_mine', ['0x2']);
    expect(BigInt((await result(owner.rpcUrl, 'eth_blockNumber')) as string)).toBe(before + 2n);
    // The dashboard's routes on the gateway read the owner's chain.
    const networks = await fetch(`${gateway.baseUrl}/api/networks`, { headers: { 'x-service-token': AUTH_TOKEN } });
    expect(networks.status).toBe(200);
    const listed = ((await networks.json()) as { data: { network: string; chain_id: string; head_block: string | null }[] }).data;
    expect(listed.find((n) => n.network === 'LOCAL')).toMatchObject({ chain_id: '0x7a69' });
    const traced = await fetch(`${gateway.baseUrl}/api/trace`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-token': AUTH_TOKEN }, body: JSON.stringify({ method: 'trace_transaction', params: [hash] }) });
    expect(traced.status).toBe(200);
    expect(((await traced.json()) as { data: unknown }).data).toEqual(await result(owner.rpcUrl, 'trace_transaction', [hash]));
  }, 60_000);

  it('behavior: eth_subscribe newHeads on the gateway sees a block the owner mined', async () => {
    const ws = new WebSocket(`${gateway.baseUrl.replace(/^http/, 'ws')}/v2/${API_KEY}`);
    const messages: { id?: number; result?: string; method?: string; params?: { subscription: string; result: { number: string; hash: string } } }[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data)) as (typeof messages)[number]));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    try {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
      const deadline = Date.now() + 10_000;
      let subscription: string | undefined;
      while (!(subscription = messages.find((m) => m.id === 1)?.result)) {
        if (Date.now() > deadline) throw new Error(`no subscription id: ${JSON.stringify(messages)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      // Mined on the owner directly: the gateway learns of it only through the owner.
      const hash = (await result(owner.rpcUrl, 'eth_sendTransaction', [{ from: DEV0, to: DEV1, value: '0x2' }])) as string;
      const block = (await result(owner.rpcUrl, 'eth_getTransactionReceipt', [hash])) as { blockNumber: string; blockHash: string };
      let head: { number: string; hash: string } | undefined;
      while (!(head = messages.find((m) => m.method === 'eth_subscription' && m.params?.subscription === subscription && m.params.result.hash === block.blockHash)?.params?.result)) {
        if (Date.now() > deadline) throw new Error(`newHeads did not show block ${block.blockNumber}: ${JSON.stringify(messages)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(head.number).toBe(block.blockNumber);
    } finally {
      ws.terminate();
    }
  }, 30_000);

  it('error: the owner\'s internal endpoint refuses a missing or wrong credential and serves the right one', async () => {
    const internal = `${owner.baseUrl}/internal/LOCAL`;
    const missing = await rpc(internal, 'eth_blockNumber');
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ code: -32001 });
    const wrong = await rpc(internal, 'eth_blockNumber', [], { 'x-service-token': `${AUTH_TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error?.message).not.toContain(AUTH_TOKEN);
    // The right token, and any spelling of the network's name, is served.
    const right = await rpc(`${owner.baseUrl}/internal/local`, 'eth_blockNumber', [], { 'x-service-token': AUTH_TOKEN });
    expect(right.status).toBe(200);
    expect(right.body.result).toMatch(/^0x[0-9a-f]+$/);
    // Only the embedded network is internal; the secret never reaches the logs.
    expect((await rpc(`${owner.baseUrl}/internal/OTHER`, 'eth_blockNumber', [], { 'x-service-token': AUTH_TOKEN })).status).toBe(404);
    expect(owner.logs()).not.toContain(AUTH_TOKEN);
    expect(gateway.logs()).not.toContain(AUTH_TOKEN);
  }, 30_000);
});
