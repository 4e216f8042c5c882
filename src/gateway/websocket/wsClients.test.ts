// Real clients, unchanged, over the WebSocket endpoint of the service (embedded chain, gateway,
// keys): ethers 6's WebSocketProvider (`provider.on('block')`, `contract.on(event)`), viem's
// webSocket transport (`watchBlocks`, `watchContractEvent`, both on eth_subscribe), and
// alchemy-sdk's `ws` namespace pointed at our URL through its `url` setting.
import { readFileSync } from 'node:fs';
import { Alchemy, Network } from 'alchemy-sdk';
import { Contract, WebSocketProvider } from 'ethers';
import { type Abi, type Hex, createPublicClient, createWalletClient, encodeFunctionData, http, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PooledService, startPooledService } from '../../backends/embedded/testing/pooledService.js';

const counter = JSON.parse(readFileSync(new URL('../../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
const DEV0: Hex = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

async function until<T>(read: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('clients over WebSocket', () => {
  let service: PooledService;
  let address: Hex;
  let increment: () => Promise<Hex>;
  beforeAll(async () => {
    service = await startPooledService({ workers: 0, gasCap: 50_000_000n, callTimeoutMs: 5_000 });
    const wallet = createWalletClient({ chain: foundry, transport: http(service.rpcUrl('enterprise')), account: DEV0 });
    const publicClient = createPublicClient({ chain: foundry, transport: http(service.rpcUrl('enterprise')) });
    const hash = await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode });
    address = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    increment = () => wallet.sendTransaction({ to: address, data: encodeFunctionData({ abi: counter.abi, functionName: 'increment' }) });
  }, 30_000);
  afterAll(() => service?.close());

  it('behavior: ethers 6 WebSocketProvider: provider.on("block") and contract.on(event) receive what is mined', async () => {
    const provider = new WebSocketProvider(service.wsUrl('payg'), 31337);
    try {
      const blocks: number[] = [];
      await provider.on('block', (n: number) => void blocks.push(n));
      const contract = new Contract(address, counter.abi as never, provider);
      const seen: { by: string; count: bigint; hash: string }[] = [];
      await contract.on('Incremented', (by: string, count: bigint, event: { log: { transactionHash: string } }) => void seen.push({ by, count, hash: event.log.transactionHash }));
      await new Promise((r) => setTimeout(r, 100));
      const hash = await increment();
      const [event] = await until(() => seen.length === 1 && seen);
      expect(event).toMatchObject({ by: DEV0, hash });
      const mined = Number(await provider.getBlockNumber());
      await until(() => blocks.includes(mined));
    } finally {
      await provider.destroy();
    }
  });

  it('behavior: viem webSocket transport: watchBlocks and watchContractEvent over eth_subscribe', async () => {
    const client = createPublicClient({ chain: foundry, transport: webSocket(service.wsUrl('payg')) });
    const blocks: bigint[] = [];
    const logs: { transactionHash: string | null; args: unknown }[] = [];
    const stopBlocks = client.watchBlocks({ onBlock: (block) => void blocks.push(block.number!), poll: false });
    const stopEvents = client.watchContractEvent({ address, abi: counter.abi, eventName: 'Incremented', onLogs: (batch) => void logs.push(...(batch as never[])), poll: false });
    try {
      // viem sends the eth_subscribe calls in the background and says nothing when they are live
      // (a fixed pause before the first transaction was too short once under a full test run), so
      // transactions go out until both feeds have delivered: every one after that is delivered.
      const sent: Hex[] = [];
      const deadline = Date.now() + 10_000;
      while (logs.length === 0 || blocks.length === 0) {
        if (Date.now() > deadline) throw new Error('timed out waiting for the subscriptions');
        sent.push(await increment());
        await until(() => logs.length > 0 && blocks.length > 0, 500).catch(() => undefined);
      }
      const [log] = logs;
      expect(sent).toContain(log!.transactionHash);
      expect(log!.args).toMatchObject({ by: DEV0 });
      const mined = await client.getBlockNumber({ cacheTime: 0 });
      await until(() => blocks.includes(mined));
      // One log per transaction sent once the feed was live, none twice.
      expect(new Set(logs.map((l) => l.transactionHash)).size).toBe(logs.length);
    } finally {
      stopBlocks();
      stopEvents();
      await (await client.transport.getRpcClient()).close();
    }
  });

  it('behavior: alchemy-sdk ws subscriptions (block and a log filter) with its url setting pointed at ws://…/v2/<key>', async () => {
    // The SDK pins a hosted network and refuses another chain id ("underlying network changed"):
    // a service whose chain has Sepolia's id, as --chain-id/--network-name allow.
    const sepolia = await startPooledService({ workers: 0, gasCap: 50_000_000n, callTimeoutMs: 5_000, chainId: 11_155_111n });
    const wallet = createWalletClient({ chain: { ...foundry, id: 11_155_111 }, transport: http(sepolia.rpcUrl('enterprise')), account: DEV0 });
    const publicClient = createPublicClient({ transport: http(sepolia.rpcUrl('enterprise')) });
    const deployed = await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode });
    const address = (await publicClient.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
    const increment = () => wallet.sendTransaction({ to: address, data: encodeFunctionData({ abi: counter.abi, functionName: 'increment' }) });
    // The url setting is used for the SDK's HTTP calls too, so this instance is for `ws` only.
    const alchemy = new Alchemy({ url: sepolia.wsUrl('payg'), network: Network.ETH_SEPOLIA });
    const ws = alchemy.ws;
    const blocks: number[] = [];
    const logs: { transactionHash: string }[] = [];
    ws.on('block', (n: number) => void blocks.push(n));
    ws.on({ address, topics: [] }, (log: { transactionHash: string }) => void logs.push(log));
    try {
      await new Promise((r) => setTimeout(r, 500));
      const hash = await increment();
      const [log] = await until(() => logs.length === 1 && logs);
      expect(log!.transactionHash).toBe(hash);
      await until(() => blocks.length > 0);
    } finally {
      ws.removeAllListeners();
      // Its eth_unsubscribe calls go out asynchronously; closing before they do makes the SDK throw.
      await new Promise((r) => setTimeout(r, 300));
      const provider = await alchemy.config.getWebSocketProvider();
      await provider.destroy();
      await sepolia.close();
    }
  });
});
