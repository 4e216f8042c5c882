// Issue 12's check, end to end: `tracehook start` as a real process with the README's networks
// example (its URLs replaced by a fleet of three anvils running one chain), used by the clients
// people point at it unchanged: viem under load while one node is SIGKILLed and restarted (zero
// failed requests), foundry's cast, the hosted provider's SDK (JSON-RPC and Notify), a cached trace
// (X-Cache), and an Address Activity webhook on that network whose activity is retracted when the
// fleet reorganises.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http } from 'viem';
import { Alchemy, Network, WebhookType } from 'alchemy-sdk';
import { parse, stringify } from 'yaml';
import { startAnvilFleet, type AnvilFleet } from '../backends/upstream/testing/anvilFleet.js';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';
import { startTestListener, type TestListener } from '../notify/testing/testListener.js';

const CAST = join(import.meta.dirname, '..', '..', 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast');
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const run = promisify(execFile);

let fleet: AnvilFleet;
let service: TracehookProcess;
let listener: TestListener;
const dir = mkdtempSync(join(tmpdir(), 'tracehook-fleet-'));

/** The README's networks example (the YAML block that has `networks:`), pointed at the fleet. */
function readmeConfig(urls: readonly string[]): string {
  const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((text) => /^networks:/m.test(text));
  if (!block) throw new Error('README has no YAML example with a networks section');
  const config = parse(block) as { networks: { name: string; chainId: number; upstreams?: { url: string; headers?: Record<string, string>; weight?: number }[] }[] };
  const upstreamNetwork = config.networks.find((n) => n.upstreams?.length)!;
  const shapes = upstreamNetwork.upstreams!;
  // The example's node entries (weights, headers) kept, one per fleet member, on the fleet's chain.
  upstreamNetwork.upstreams = urls.map((url, i) => ({ ...shapes[i % shapes.length], url }));
  upstreamNetwork.chainId = 31337;
  return stringify(config);
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

beforeAll(async () => {
  fleet = await startAnvilFleet(3);
  await fleet.mine({ txs: 2 });
  const file = join(dir, 'tracehook.yaml');
  writeFileSync(file, readmeConfig(fleet.urls));
  service = await spawnTracehook({ dataDir: join(dir, 'data'), args: ['--config', file, '--log-level', 'warn'] });
  listener = await startTestListener();
}, 90_000);

afterAll(async () => {
  await service?.kill('SIGTERM');
  await listener?.close();
  await fleet?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a fleet of anvils behind tracehook, configured from the README example', () => {
  it('behavior: zero failed requests from viem while one node is SIGKILLed and restarted; traffic returns to it', async () => {
    const client = createPublicClient({ transport: http(service.rpcUrl, { retryCount: 0 }) });
    let failures = 0;
    let requests = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          const n = await client.getBlockNumber({ cacheTime: 0 });
          await client.getBalance({ address: RECIPIENT, blockNumber: n });
          await client.getBlock({ blockNumber: n });
          requests += 3;
        } catch {
          failures++;
        }
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    await new Promise((r) => setTimeout(r, 500));
    await fleet.kill(1);
    await fleet.mine({ txs: 1 });
    await new Promise((r) => setTimeout(r, 1_000));
    await fleet.restart(1);
    await fleet.mine({ txs: 1 });
    await new Promise((r) => setTimeout(r, 1_500));
    stop = true;
    await Promise.all(workers);
    expect(requests).toBeGreaterThan(50);
    expect(failures).toBe(0);
    // The restarted node is healthy again and takes calls.
    const auth = { headers: { 'X-Service-Token': service.authToken } };
    const deadline = Date.now() + 10_000;
    let row: { label: string; state: string; requests: number } | undefined;
    for (;;) {
      const { data } = (await (await fetch(`${service.baseUrl}/api/upstreams`, auth)).json()) as { data: { network: string; upstreams: { label: string; state: string; requests: number }[] }[] };
      row = data[0]!.upstreams.find((u) => u.label.endsWith('#1'));
      if (row?.state === 'healthy' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(row?.state).toBe('healthy');
    const before = row!.requests;
    for (let i = 0; i < 30; i++) await client.getBalance({ address: RECIPIENT });
    const { data } = (await (await fetch(`${service.baseUrl}/api/upstreams`, auth)).json()) as { data: { upstreams: { label: string; requests: number }[] }[] };
    expect(data[0]!.upstreams.find((u) => u.label.endsWith('#1'))!.requests).toBeGreaterThan(before);
  }, 60_000);

  it('behavior: cast, the SDK and a cached trace get the nodes\' own answers', async () => {
    const direct = fleet.urls[0]!;
    const { stdout: number } = await run(CAST, ['block-number', '--rpc-url', service.rpcUrl]);
    expect(BigInt(number.trim())).toBe(BigInt((await rpc(direct, 'eth_blockNumber')).result as string));
    const { stdout: balance } = await run(CAST, ['balance', RECIPIENT, '--rpc-url', service.rpcUrl]);
    expect(BigInt(balance.trim())).toBe(BigInt((await rpc(direct, 'eth_getBalance', [RECIPIENT, 'latest'])).result as string));
    const alchemy = new Alchemy({ url: service.rpcUrl, maxRetries: 0 });
    const block = await alchemy.core.getBlockWithTransactions(1);
    expect(block.transactions).toHaveLength(2);
    const hash = block.transactions[0]!.hash;
    const { stdout: traced } = await run(CAST, ['rpc', 'trace_transaction', hash, '--rpc-url', service.rpcUrl]);
    expect(JSON.parse(traced)).toEqual((await rpc(direct, 'trace_transaction', [hash])).result);
    // The second time from the cache, with the same bytes' meaning.
    const ask = () => fetch(service.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'debug_traceTransaction', params: [hash, { tracer: 'callTracer' }] }) });
    const first = await ask();
    const second = await ask();
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(await second.json()).toEqual(await first.json());
  }, 60_000);

  it('behavior: an Address Activity webhook on the fleet network, made with the SDK, delivers and is retracted on a reorg', async () => {
    const notify = new Alchemy({ authToken: service.authToken, url: `${service.baseUrl}/api`, maxRetries: 0 });
    const created = await notify.notify.createWebhook(`${listener.url}`, WebhookType.ADDRESS_ACTIVITY, { addresses: [RECIPIENT], network: Network.ETH_MAINNET });
    expect(created.network).toBe(Network.ETH_MAINNET);
    const revert = await fleet.snapshot();
    const mined = await fleet.mine({ txs: 1 });
    type Activity = { blockNum: string; toAddress: string; removed?: boolean; hash: string };
    const activities = () => listener.requests.flatMap((r) => (JSON.parse(r.body) as { event: { network: string; activity: Activity[] } }).event.activity);
    await listener.waitFor(() => activities().some((a) => BigInt(a.blockNum) === mined.number && !a.removed), 20_000);
    // The fleet drops that block and mines an empty one at its height: the activity is retracted.
    await revert();
    await fleet.mine({ txs: 0 });
    await listener.waitFor(() => activities().some((a) => BigInt(a.blockNum) === mined.number && a.removed === true), 20_000);
    const bodies = listener.requests.map((r) => JSON.parse(r.body) as { event: { network: string } });
    // The wire name, as the hosted provider sends it (the SDK's enum spells it eth-mainnet).
    expect(new Set(bodies.map((b) => b.event.network))).toEqual(new Set(['ETH_MAINNET']));
  }, 60_000);
});
