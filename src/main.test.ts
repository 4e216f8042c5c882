// End to end through the real CLI process: viem over HTTP sends ETH, deploys and calls a contract,
// reads logs and receipts; the process is SIGKILLed and restarted on the same data dir, and every
// answer is the same. Also: the banner's credentials persist and never appear in the logs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseEther, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { spawnTracehook, type TracehookProcess } from './testing/spawnTracehook.js';

const counter = JSON.parse(readFileSync(new URL('../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const recipient = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-e2e-'));
const running: TracehookProcess[] = [];
afterAll(async () => {
  for (const p of running) await p.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function snapshot(rpcUrl: string, contract: Hex, hashes: Hex[]) {
  const client = createPublicClient({ chain: foundry, transport: http(rpcUrl) });
  const head = await client.getBlockNumber();
  const blocks = [];
  for (let n = 0n; n <= head; n++) blocks.push(await client.getBlock({ blockNumber: n }));
  return {
    head,
    blocks,
    receipts: await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash }))),
    txs: await Promise.all(hashes.map((hash) => client.getTransaction({ hash }))),
    logs: await client.getLogs({ address: contract, fromBlock: 0n, toBlock: 'latest' }),
    balance: await client.getBalance({ address: recipient }),
    countNow: await client.readContract({ address: contract, abi: counter.abi, functionName: 'count' }),
    traces: await Promise.all(hashes.map((hash) => client.request({ method: 'trace_transaction' as 'eth_chainId', params: [hash] as never }))),
    callTraces: await Promise.all(hashes.map((hash) => client.request({ method: 'debug_traceTransaction' as 'eth_chainId', params: [hash, { tracer: 'callTracer' }] as never }))),
    countHistoric: await Promise.all([head - 2n, head - 1n, head].map((blockNumber) => client.readContract({ address: contract, abi: counter.abi, functionName: 'count', blockNumber }))),
  };
}

describe('tracehook start (end to end)', () => {
  it('behavior: viem works unchanged, and a SIGKILLed service restarts with the same answers', async () => {
    const first = await spawnTracehook({ dataDir });
    running.push(first);
    const wallet = createWalletClient({ account, chain: foundry, transport: http(first.rpcUrl) });
    const client = createPublicClient({ chain: foundry, transport: http(first.rpcUrl) });

    const send = await wallet.sendTransaction({ to: recipient, value: parseEther('1.5') });
    const deploy = await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode });
    const deployReceipt = await client.waitForTransactionReceipt({ hash: deploy });
    const contract = deployReceipt.contractAddress!;
    const inc1 = await wallet.writeContract({ address: contract, abi: counter.abi, functionName: 'increment' });
    const inc2 = await wallet.writeContract({ address: contract, abi: counter.abi, functionName: 'increment' });
    await expect(client.readContract({ address: contract, abi: counter.abi, functionName: 'fail', args: ['nope'] })).rejects.toThrow(/nope/);

    const before = await snapshot(first.rpcUrl, contract, [send, deploy, inc1, inc2]);
    expect(before.head).toBe(4n);
    expect(before.receipts.map((r) => r.status)).toEqual(['success', 'success', 'success', 'success']);
    expect(before.logs).toHaveLength(2);
    expect(before.countNow).toBe(2n);
    expect(before.countHistoric).toEqual([0n, 1n, 2n]);
    expect(before.balance).toBe(parseEther('10001.5'));
    expect(before.traces[2]).toMatchObject([{ type: 'call', action: { from: account.address.toLowerCase(), to: contract.toLowerCase(), callType: 'call' }, transactionHash: inc1, blockNumber: 3, transactionPosition: 0, traceAddress: [], subtraces: 0 }]);
    expect(before.callTraces[1]).toMatchObject({ type: 'CREATE', from: account.address.toLowerCase(), to: contract.toLowerCase() });

    expect(await first.kill('SIGKILL')).toBe(null);
    const second = await spawnTracehook({ dataDir });
    running.push(second);
    expect(second.rpcUrl.split('/v2/')[1]).toBe(first.rpcUrl.split('/v2/')[1]);
    expect(second.authToken).toBe(first.authToken);
    const after = await snapshot(second.rpcUrl, contract, [send, deploy, inc1, inc2]);
    expect(after).toEqual(before);

    // The chain continues where it stopped.
    const wallet2 = createWalletClient({ account, chain: foundry, transport: http(second.rpcUrl) });
    const inc3 = await wallet2.writeContract({ address: contract, abi: counter.abi, functionName: 'increment' });
    const client2 = createPublicClient({ chain: foundry, transport: http(second.rpcUrl) });
    expect((await client2.getTransactionReceipt({ hash: inc3 })).blockNumber).toBe(5n);

    const key = first.rpcUrl.split('/v2/')[1]!;
    for (const p of [first, second]) {
      expect(p.logs()).not.toContain(key);
      expect(p.logs()).not.toContain(first.authToken);
    }
    expect(await second.kill('SIGTERM')).toBe(0);
  }, 120_000);
});

describe('webhooks through the service (end to end)', () => {
  let listener: Server | undefined;
  afterAll(() => listener?.close());

  it('behavior: an ADDRESS_ACTIVITY webhook created over /api delivers a signed notification for an ETH transfer', async () => {
    const received: { body: string; signature: string | undefined }[] = [];
    listener = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-service-signature'] as string | undefined });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => listener!.listen(0, '127.0.0.1', () => r()));
    const listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook`;

    const dir = mkdtempSync(join(tmpdir(), 'tracehook-e2e-wh-'));
    const service = await spawnTracehook({ dataDir: dir });
    running.push(service);
    const created = await fetch(`${service.baseUrl}/api/create-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': service.authToken },
      body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listenerUrl, addresses: [recipient] }),
    });
    expect(created.status).toBe(200);
    // One router and one document for every management route the service mounts.
    const doc = (await (await fetch(`${service.baseUrl}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/keys', '/keys/{id}/usage', '/create-webhook', '/webhook-signing-key', '/backfill-webhook', '/healthz', '/metrics']));
    expect((await fetch(`${service.baseUrl}/api/keys`, { headers: { 'x-service-token': service.authToken } })).status).toBe(200);
    const webhook = ((await created.json()) as { data: { id: string; signing_key: string } }).data;

    const wallet = createWalletClient({ account, chain: foundry, transport: http(service.rpcUrl) });
    const hash = await wallet.sendTransaction({ to: recipient, value: parseEther('0.25') });

    const deadline = Date.now() + 20_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(received).toHaveLength(1);
    const { body, signature } = received[0]!;
    expect(signature).toBe(createHmac('sha256', webhook.signing_key).update(body).digest('hex'));
    const notification = JSON.parse(body) as { webhookId: string; type: string; event: { network: string; activity: Record<string, unknown>[] } };
    expect(notification).toMatchObject({ webhookId: webhook.id, type: 'ADDRESS_ACTIVITY', event: { network: 'LOCAL' } });
    expect(notification.event.activity).toEqual([
      expect.objectContaining({ fromAddress: account.address.toLowerCase(), toAddress: recipient, hash, value: 0.25, asset: 'ETH', category: 'external', blockNum: '0x1' }),
    ]);

    // A second webhook created with from_block replays history: block 1's transfer arrives too.
    const backfilled = await fetch(`${service.baseUrl}/api/create-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': service.authToken },
      body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: listenerUrl, addresses: [recipient], from_block: 1 }),
    });
    const second = ((await backfilled.json()) as { data: { id: string } }).data;
    await wallet.sendTransaction({ to: account.address, value: 1n }); // a new block lets the follower pick the request up
    const fromSecond = () => received.map((r) => JSON.parse(r.body) as { webhookId: string; event: { activity: { hash: string; blockNum: string }[] } }).filter((n) => n.webhookId === second.id);
    const until = Date.now() + 20_000;
    while (fromSecond().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(fromSecond()[0]?.event.activity).toEqual([expect.objectContaining({ hash, blockNum: '0x1' })]);

    await service.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
