// The service with upstream networks, in process against real anvil nodes: a config file with two
// upstream networks and the embedded chain routes each path to its node, and an Address Activity
// webhook on an anvil network delivers the same notifications as on the embedded chain for the same
// signed transactions (anvil and the embedded chain share chain id 31337 and the dev mnemonic).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeDeployData, parseEther, parseGwei, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { stringify } from 'yaml';
import { startService, type RunningService } from '../main.js';
import { loadConfig } from '../config/loadConfig.js';
import { startAnvil, type AnvilProcess } from '../testing/startAnvil.js';
import { startTestListener, type TestListener } from '../notify/testing/testListener.js';
import { activityArtifact, encodeActivityCall } from '../notify/follow/testing/activityContracts.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-upstream-networks-'));
const sender = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const watched = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

type Activity = Record<string, unknown>;
type Body = { webhookId: string; type: string; event: { network: string; activity: Activity[] } };

let devAnvil: AnvilProcess;
let opAnvil: AnvilProcess;
let service: RunningService;
let listener: TestListener;
let key: string;
let token: string;

beforeAll(async () => {
  [devAnvil, opAnvil] = await Promise.all([startAnvil(), startAnvil(['--chain-id', '10'])]);
  const file = join(dataDir, 'tracehook.yaml');
  writeFileSync(
    file,
    stringify({
      networks: [
        { name: 'ANVIL_DEV', chainId: 31337, upstreams: [{ url: devAnvil.url, headers: { 'X-Test': 'sent-to-the-node' } }] },
        { name: 'OPT_MAINNET', chainId: 10, upstreams: [{ url: opAnvil.url, weight: 2 }] },
        { name: 'LOCAL', chainId: 31337, embedded: true },
      ],
    }),
  );
  key = 'upstream-networks-key';
  token = 'upstream-networks-token-0123456789';
  const config = loadConfig({ flags: { config: file, dataDir: join(dataDir, 'data'), port: 0, logLevel: 'silent', devApiKey: key, authToken: token, traceWorkers: 0 }, env: {} });
  service = await startService(config);
  listener = await startTestListener();
}, 60_000);

afterAll(async () => {
  await service?.close();
  await listener?.close();
  await Promise.all([devAnvil?.stop(), opAnvil?.stop()]);
  rmSync(dataDir, { recursive: true, force: true });
});

async function rpc(path: string, method: string, params: unknown[] = []): Promise<{ status: number; body: { result?: unknown; error?: { code: number; message: string } } }> {
  const res = await fetch(`${service.baseUrl}${path}/v2/${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return { status: res.status, body: (await res.json()) as { result?: unknown; error?: { code: number; message: string } } };
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${service.baseUrl}/api${path}`, { method, headers: { 'content-type': 'application/json', 'x-service-token': token }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('upstream networks from the config file (real anvil)', () => {
  it('behavior: each path reaches its network\'s node; the first network is /v2; unknown networks are 404', async () => {
    const chainId = async (path: string) => (await rpc(path, 'eth_chainId')).body.result;
    expect(await chainId('')).toBe('0x7a69');
    expect(await chainId('/anvil-dev')).toBe('0x7a69');
    expect(await chainId('/OPT_MAINNET')).toBe('0xa');
    expect(await chainId('/opt-mainnet')).toBe('0xa');
    expect(await chainId('/local')).toBe('0x7a69');
    // A method the embedded chain does not know passes through to the node; the embedded chain refuses it.
    expect(typeof (await rpc('/opt-mainnet', 'ots_getApiLevel')).body.result).toBe('number');
    expect((await rpc('/local', 'ots_getApiLevel')).body.error).toMatchObject({ code: -32601 });
    const unknown = await rpc('/eth-mainnet', 'eth_chainId');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error!.message).toBe('Unknown network eth-mainnet; served: ANVIL_DEV, OPT_MAINNET, LOCAL');
    const ready = await fetch(`${service.baseUrl}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { 'network:ANVIL_DEV': 'ok', 'network:OPT_MAINNET': 'ok', 'network:LOCAL': 'ok' } });
  });

  it('error: a webhook without network is refused when several networks are served', async () => {
    const r = await api('POST', '/create-webhook', { webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listener.url, addresses: [watched] });
    expect(r).toEqual({ status: 400, body: { message: 'network: is required: this service serves ANVIL_DEV, OPT_MAINNET, LOCAL', field: 'network' } });
  });

  it('behavior: an Address Activity webhook on an anvil network delivers what the same transactions deliver on the embedded chain', async () => {
    const hooks: Record<string, string> = {};
    for (const network of ['anvil-dev', 'LOCAL']) {
      const r = await api('POST', '/create-webhook', { network, webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listener.url, addresses: [watched] });
      expect(r.status).toBe(200);
      const data = r.body.data as { id: string; network: string };
      hooks[data.network] = data.id;
    }
    expect(Object.keys(hooks).sort()).toEqual(['ANVIL_DEV', 'LOCAL']);
    // Both followers have a cursor before the first transaction, so they start from the same block.
    for (const id of Object.values(hooks)) {
      for (let i = 0; ; i++) {
        const status = await api('GET', `/backfill-status?webhook_id=${id}`);
        if ((status.body.data as { current_block: string | null }).current_block !== null) break;
        if (i > 200) throw new Error('follower never stored a cursor');
        await new Promise((r) => setTimeout(r, 25));
      }
    }

    const token = activityArtifact('ActivityToken');
    const router = activityArtifact('ActivityRouter');
    const txs = [
      { data: encodeDeployData({ abi: token.abi, bytecode: token.bytecode, args: ['Activity Token', 'ATK', 6] }), gas: 3_000_000n },
      { data: router.bytecode, gas: 3_000_000n },
      { to: watched, value: parseEther('0.75'), gas: 21_000n },
      // Contract addresses follow from the sender and nonce, so they are the same on both chains.
      { to: '0x5fbdb2315678afecb367f032d93f642f64180aa3', data: encodeActivityCall('ActivityToken', 'mint', [watched, 2_500_000n]), gas: 200_000n },
      { to: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512', data: encodeActivityCall('ActivityRouter', 'split', [[watched], [parseEther('0.5')]]), value: parseEther('0.5'), gas: 200_000n },
    ] as { to?: Hex; data?: Hex; value?: bigint; gas: bigint }[];
    for (const [nonce, tx] of txs.entries()) {
      const raw = await sender.signTransaction({ chainId: 31337, type: 'eip1559', nonce, maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('1'), ...tx });
      for (const path of ['/anvil-dev', '/local']) {
        const sent = await rpc(path, 'eth_sendRawTransaction', [raw]);
        expect(sent.body.error).toBeUndefined();
        for (let i = 0; !(await rpc(path, 'eth_getTransactionReceipt', [sent.body.result])).body.result; i++) {
          if (i > 400) throw new Error(`no receipt on ${path}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    }

    const bodies = (network: string) => listener.requests.map((r) => JSON.parse(r.body) as Body).filter((b) => b.webhookId === hooks[network]);
    await listener.waitFor(() => bodies('ANVIL_DEV').length >= 3 && bodies('LOCAL').length >= 3, 20_000);
    // Block hashes differ (the chains' timestamps do); everything else must be the same.
    const comparable = (network: string) =>
      bodies(network).map((b) => ({ type: b.type, activity: b.event.activity.map((a): Activity => ({ ...a, log: a.log ? { ...(a.log as Activity), blockHash: undefined } : null })) }));
    const local = comparable('LOCAL');
    expect(local.map((b) => b.activity.map((a) => a.category))).toEqual([['external'], ['token'], ['internal']]);
    expect(comparable('ANVIL_DEV')).toEqual(local);
    expect(bodies('ANVIL_DEV').every((b) => b.event.network === 'ANVIL_DEV')).toBe(true);
    expect(bodies('LOCAL')[1]!.event.activity[0]).toMatchObject({ asset: 'ATK', value: 2.5 });
    expect(bodies('LOCAL')[2]!.event.activity[0]).toMatchObject({ typeTraceAddress: 'call_0', value: 0.5 });
  }, 60_000);
});
