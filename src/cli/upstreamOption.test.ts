// `tracehook start --upstream` through the real CLI process against real anvil nodes: the network is
// named from the chain id the nodes answer (anvil --chain-id 1 → ETH_MAINNET) and served at /v2
// before the embedded chain (named by --network-name); viem and ethers work against it unchanged; nodes on different chains,
// and a bad config, stop the start with a message naming the key and never the URL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { mainnet } from 'viem/chains';
import { JsonRpcProvider, Wallet } from 'ethers';
import { startAnvil, type AnvilProcess } from '../testing/startAnvil.js';
import { spawnTracehook, type TracehookProcess } from '../testing/spawnTracehook.js';

const dir = mkdtempSync(join(tmpdir(), 'tracehook-upstream-cli-'));
const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const recipient = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';

let mainnetNode: AnvilProcess;
let devNode: AnvilProcess;
const running: TracehookProcess[] = [];

beforeAll(async () => {
  [mainnetNode, devNode] = await Promise.all([startAnvil(['--chain-id', '1']), startAnvil()]);
});
afterAll(async () => {
  for (const p of running) await p.kill('SIGKILL');
  await Promise.all([mainnetNode?.stop(), devNode?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const post = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return { status: res.status, body: (await res.json()) as { result?: unknown; error?: { message: string } } };
};

describe('tracehook start --upstream (real process, real anvil)', () => {
  it('behavior: the network is named from the probed chain id, served first; viem and ethers work against /v2 unchanged', async () => {
    const service = await spawnTracehook({ dataDir: join(dir, 'a'), args: ['--upstream', mainnetNode.url, '--network-name', 'ETH_SEPOLIA', '--trace-workers', '0'] });
    running.push(service);
    const key = service.rpcUrl.split('/v2/')[1]!;
    expect((await post(service.rpcUrl, 'eth_chainId')).body.result).toBe('0x1');
    expect((await post(`${service.baseUrl}/eth-mainnet/v2/${key}`, 'eth_chainId')).body.result).toBe('0x1');
    expect((await post(`${service.baseUrl}/ETH_MAINNET/v2/${key}`, 'eth_chainId')).body.result).toBe('0x1');
    // The embedded chain, renamed by --network-name, comes after the upstream network.
    expect((await post(`${service.baseUrl}/eth-sepolia/v2/${key}`, 'eth_chainId')).body.result).toBe('0x7a69');
    const unknown = await post(`${service.baseUrl}/base-mainnet/v2/${key}`, 'eth_chainId');
    expect(unknown).toEqual({ status: 404, body: { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Unknown network base-mainnet; served: ETH_MAINNET, ETH_SEPOLIA' } } });

    // viem: a locally signed transfer and reads, through the pass-through to anvil.
    const account = privateKeyToAccount(KEY0);
    const client = createPublicClient({ chain: mainnet, transport: http(service.rpcUrl) });
    const wallet = createWalletClient({ account, chain: mainnet, transport: http(service.rpcUrl) });
    expect(await client.getChainId()).toBe(1);
    const hash = await wallet.sendTransaction({ to: recipient, value: parseEther('1.25') });
    expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe('success');
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('10001.25'));

    // ethers: the same through its provider and wallet.
    const provider = new JsonRpcProvider(service.rpcUrl, undefined, { staticNetwork: true, polling: true, pollingInterval: 50 });
    expect((await provider.getNetwork()).chainId).toBe(1n);
    const key1 = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 1 }).getHdKey().privateKey!;
    const sent = await new Wallet(`0x${Buffer.from(key1).toString('hex')}`, provider).sendTransaction({ to: recipient, value: parseEther('0.5') });
    expect((await sent.wait())!.status).toBe(1);
    expect(await provider.getBalance(recipient)).toBe(parseEther('10001.75'));
    // What Tracehook answered is what anvil holds.
    expect((await post(mainnetNode.url, 'eth_getBalance', [recipient, 'latest'])).body.result).toBe(`0x${parseEther('10001.75').toString(16)}`);
    provider.destroy();
    expect(service.logs()).not.toContain(key);
    await service.kill('SIGTERM');
  }, 60_000);

  it('error: nodes on different chains stop the start naming the node by index, never its URL', async () => {
    const withCredentials = devNode.url.replace('http://', 'http://operator:sekrit-token@');
    const start = spawnTracehook({ dataDir: join(dir, 'b'), args: ['--upstream', mainnetNode.url, '--upstream', withCredentials] });
    const error = await start.then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toContain("upstream[1]: chain id 31337 differs from upstream[0]'s 1; the nodes of one network must be on one chain");
    expect(error?.message).not.toContain('sekrit');
    expect(error?.message).not.toContain(String(devNode.port));
  }, 60_000);

  it('error: a bad networks entry in the config file stops the start naming the key', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'networks:\n  - name: ETH_MAINNET\n    chainId: 1\n    upstreams:\n      - url: ftp://user:sekrit@node\n');
    const error = await spawnTracehook({ dataDir: join(dir, 'c'), args: ['--config', file] }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toContain('invalid option networks[0].upstreams[0].url: must be an http(s) URL');
    expect(error?.message).not.toContain('sekrit');
  }, 60_000);
});
