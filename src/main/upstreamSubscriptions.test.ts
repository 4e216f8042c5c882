// eth_subscribe on an upstream network, against a real anvil behind the network's pool and the
// gateway's WebSocket endpoint: newHeads and logs arrive in the embedded chain's shapes, a reorg on
// the node (evm_revert, then other blocks) sends the dropped logs again with removed: true, and
// newPendingTransactions is refused naming why.
import { readFileSync } from 'node:fs';
import { type Abi, type Hex, createPublicClient, createWalletClient, encodeFunctionData, http } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import pino from 'pino';
import { type TestGateway, startTestGateway } from '../gateway/testing/startTestGateway.js';
import { type AnvilProcess, startAnvil } from '../testing/startAnvil.js';
import { type NetworkBackend, createNetworkBackend } from './networkBackends.js';
import { type UpstreamSubscriptions, createUpstreamSubscriptions } from './upstreamSubscriptions.js';

const counter = JSON.parse(readFileSync(new URL('../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
const DEV0: Hex = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

type Message = { id?: number; result?: unknown; error?: { code: number; message: string }; method?: string; params?: { subscription: string; result: Record<string, unknown> } };

async function until<T>(read: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('subscriptions on an upstream network (real anvil)', () => {
  let anvil: AnvilProcess;
  let network: NetworkBackend;
  let subscriptions: UpstreamSubscriptions;
  let gateway: TestGateway;
  let ws: WebSocket;
  const messages: Message[] = [];
  let next = 1;
  let address: Hex;
  const call = async (method: string, params: unknown[] = []) => {
    const id = next++;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return until(() => messages.find((m) => m.id === id));
  };
  const notifications = (id: string) => messages.filter((m) => m.method === 'eth_subscription' && m.params?.subscription === id).map((m) => m.params!.result);
  const node = (method: string, params: unknown[] = []) =>
    fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then(async (r) => ((await r.json()) as { result: unknown }).result);
  const increment = async () => {
    const wallet = createWalletClient({ chain: foundry, transport: http(anvil.url), account: DEV0 });
    return wallet.sendTransaction({ to: address, data: encodeFunctionData({ abi: counter.abi, functionName: 'increment' }) });
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    const wallet = createWalletClient({ chain: foundry, transport: http(anvil.url), account: DEV0 });
    const client = createPublicClient({ chain: foundry, transport: http(anvil.url) });
    address = (await client.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode }) })).contractAddress!;
    const logger = pino({ level: 'silent' });
    network = createNetworkBackend({ kind: 'upstream', name: 'ANVIL_UP', chainId: 31337n, upstreams: [{ url: anvil.url, weight: 1 }] }, { logger, headPollMs: 100 });
    await network.start();
    subscriptions = createUpstreamSubscriptions({ network: 'ANVIL_UP', backend: network.backend, chain: network.upstreams, logger });
    gateway = await startTestGateway({ networks: [{ name: 'ANVIL_UP', backends: [subscriptions.backend], passThrough: network.backend }] });
    ws = new WebSocket(`${gateway.url.replace(/^http/, 'ws')}/v2/${gateway.keys.enterprise}`);
    ws.on('message', (data) => messages.push(JSON.parse(String(data)) as Message));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  }, 60_000);

  afterAll(async () => {
    ws?.terminate();
    await gateway?.close();
    subscriptions?.close();
    network?.close();
    await anvil?.stop();
  });

  it('behavior: newHeads and logs come from the node\'s new blocks; a reorg sends the dropped logs with removed: true', async () => {
    const heads = (await call('eth_subscribe', ['newHeads'])).result as string;
    const logs = (await call('eth_subscribe', ['logs', { address }])).result as string;
    expect(heads).toMatch(/^0x[0-9a-f]{32}$/);
    expect(logs).toMatch(/^0x[0-9a-f]{32}$/);
    const snapshot = await node('evm_snapshot');
    const hash = await increment();
    const [log] = await until(() => notifications(logs).length >= 1 && notifications(logs));
    expect(log).toMatchObject({ transactionHash: hash, removed: false, address: address.toLowerCase() });
    const mined = (await node('eth_getTransactionReceipt', [hash])) as { blockHash: string; blockNumber: string };
    const head = await until(() => notifications(heads).find((h) => h.hash === mined.blockHash));
    expect(head).toMatchObject({ number: mined.blockNumber, parentHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), logsBloom: expect.stringMatching(/^0x/) });
    expect(head.transactions).toBeUndefined();

    // The node drops that block and mines two others in its place.
    expect(await node('evm_revert', [snapshot])).toBe(true);
    await node('anvil_mine', ['0x2']);
    const [, removed] = await until(() => notifications(logs).length >= 2 && notifications(logs));
    expect(removed).toMatchObject({ transactionHash: hash, removed: true, blockHash: mined.blockHash });
    const newHead = (await node('eth_getBlockByNumber', ['latest', false])) as { hash: string };
    await until(() => notifications(heads).some((h) => h.hash === newHead.hash));
  }, 60_000);

  it("behavior: polled log filters (viem's, unchanged): past logs first, new ones, removed: true after a reorg, eth_getFilterLogs", async () => {
    const client = createPublicClient({ chain: foundry, transport: http(`${gateway.url}/v2/${gateway.keys.enterprise}`) });
    const event = counter.abi.find((e) => e.type === 'event')!;
    const direct = createPublicClient({ chain: foundry, transport: http(anvil.url) });
    const past = await increment();
    const pastBlock = await direct.waitForTransactionReceipt({ hash: past });
    const filter = await client.createEventFilter({ address, fromBlock: pastBlock.blockNumber, event: event as never });
    const changes = async () => (await client.getFilterChanges({ filter })) as unknown as { transactionHash: string; removed: boolean }[];
    expect((await changes()).map((l) => [l.transactionHash, l.removed])).toEqual([[past, false]]);
    const snapshot = await node('evm_snapshot');
    const fresh = await increment();
    const seen: { transactionHash: string; removed: boolean }[] = [];
    const poll = async (n: number) => {
      const deadline = Date.now() + 15_000;
      while (seen.length < n) {
        seen.push(...(await changes()));
        if (Date.now() > deadline) throw new Error(`polled ${seen.length} of ${n} logs`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await poll(1);
    expect(seen.map((l) => [l.transactionHash, l.removed])).toEqual([[fresh, false]]);
    const all = (await client.getFilterLogs({ filter })) as unknown as { transactionHash: string }[];
    expect(all.map((l) => l.transactionHash)).toEqual([past, fresh]);
    // The node drops the block of `fresh`: the next polls report its log removed.
    expect(await node('evm_revert', [snapshot])).toBe(true);
    await node('anvil_mine', ['0x2']);
    await poll(2);
    expect(seen.map((l) => [l.transactionHash, l.removed])).toEqual([[fresh, false], [fresh, true]]);
    expect(await client.uninstallFilter({ filter })).toBe(true);
  }, 60_000);

  it('error: newPendingTransactions is refused naming why; over HTTP eth_subscribe says to use WebSocket', async () => {
    const refused = await call('eth_subscribe', ['newPendingTransactions']);
    expect(refused.error).toMatchObject({ code: -32601 });
    expect(refused.error!.message).toContain('transaction pools are not followed');
    const unknown = await call('eth_subscribe', ['nope']);
    expect(unknown.error).toMatchObject({ code: -32602 });
    const res = await fetch(`${gateway.url}/v2/${gateway.keys.enterprise}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }) });
    expect(((await res.json()) as Message).error!.message).toContain('WebSocket');
  });
});
