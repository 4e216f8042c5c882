// The WebSocket endpoint against the real service path (embedded chain, gateway, SQLite keys):
// plain calls and batches, eth_subscribe for newHeads/logs/newPendingTransactions with removed logs
// after evm_revert, key checks at the upgrade, tiers and compute units per message, and every
// bound: subscriptions per connection and per key, open connections and filters per key,
// notifications billed by their bytes (and a connection over budget closed), message size, malformed JSON, unknown
// subscription types, a client that never reads, and a pass-through network's refusal.
import { readFileSync } from 'node:fs';
import { type Abi, type Hex, createPublicClient, createWalletClient, encodeFunctionData, http } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMethodTableBackend } from '../../backends/backend.js';
import { type PooledService, startPooledService } from '../../backends/embedded/testing/pooledService.js';
import { createApiKey } from '../keys/apiKeys.js';
import { createTestState, createTestTable } from '../testing/testNamespace.js';

const counter = JSON.parse(readFileSync(new URL('../../../fixtures/contracts/build/Counter.json', import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
const DEV0: Hex = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const INCREMENTED = '0x' as Hex; // filled in beforeAll from a receipt

type Message = { id?: number | null; result?: unknown; error?: { code: number; message: string }; method?: string; params?: { subscription: string; result: unknown } };

/** A raw JSON-RPC WebSocket client that keeps every message it receives. */
class RawClient {
  readonly messages: Message[] = [];
  closed: { code: number; reason: string } | undefined;
  #next = 1;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => this.messages.push(JSON.parse(String(data)) as Message));
    ws.on('close', (code, reason) => (this.closed = { code, reason: String(reason) }));
    ws.on('error', () => undefined);
  }
  static open(url: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const client = new RawClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
      ws.once('error', reject);
    });
  }
  send(text: string): void {
    this.ws.send(text);
  }
  async call(method: string, params: unknown[] = []): Promise<Message> {
    const id = this.#next++;
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return until(() => this.messages.find((m) => m.id === id));
  }
  notifications(subscription: string): unknown[] {
    return this.messages.filter((m) => m.method === 'eth_subscription' && m.params?.subscription === subscription).map((m) => m.params!.result);
  }
  close(): void {
    this.ws.close();
  }
}

async function until<T>(read: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('websocket endpoint', () => {
  let service: PooledService;
  let ws: string;
  let address: Hex;
  let topic0: Hex = INCREMENTED;
  const opened: RawClient[] = [];
  const open = async (url: string) => {
    const client = await RawClient.open(url);
    opened.push(client);
    return client;
  };
  const increment = async () => {
    const wallet = createWalletClient({ chain: foundry, transport: http(service.rpcUrl('enterprise')), account: DEV0 });
    return wallet.sendTransaction({ to: address, data: encodeFunctionData({ abi: counter.abi, functionName: 'increment' }) });
  };

  beforeAll(async () => {
    const passState = createTestState();
    service = await startPooledService({
      workers: 0,
      gasCap: 50_000_000n,
      callTimeoutMs: 5_000,
      tiers: { cuPerSecond: { free: 200 } },
      websocket: { maxInFlightMessages: 4, maxSubscriptionsPerConnection: 3, maxSubscriptionsPerKey: 5, maxBufferedBytes: 256 * 1024, socketHighWaterBytes: 16 * 1024, maxMessageBytes: 64 * 1024, maxConnectionsPerKey: { free: 2 } },
      usageFlushIntervalMs: 100,
      moreNetworks: [{ name: 'upstreamish', passThrough: createMethodTableBackend(createTestTable(passState), 'upstream') }],
    });
    ws = service.wsUrl('enterprise');
    const wallet = createWalletClient({ chain: foundry, transport: http(service.rpcUrl('enterprise')), account: DEV0 });
    const publicClient = createPublicClient({ chain: foundry, transport: http(service.rpcUrl('enterprise')) });
    const hash = await wallet.deployContract({ abi: counter.abi, bytecode: counter.bytecode });
    address = (await publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await increment() });
    topic0 = receipt.logs[0]!.topics[0]!;
  }, 30_000);
  afterAll(async () => {
    for (const c of opened) c.ws.terminate();
    await service?.close();
  });

  it('default: answers plain calls and batches on /v2/<key> and /<network>/v2/<key>', async () => {
    const client = await open(ws);
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    const named = await open(ws.replace('/v2/', '/local/v2/'));
    expect((await named.call('eth_blockNumber')).result).toMatch(/^0x[0-9a-f]+$/);
    named.send(JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'eth_chainId' }, { jsonrpc: '2.0', id: 'b', method: 'eth_coinbase' }]));
    await until(() => named.messages.some((m) => Array.isArray(m)));
    const batch = named.messages.find((m) => Array.isArray(m)) as unknown as Message[];
    expect(batch.map((m) => m.result)).toEqual(['0x7a69', expect.stringMatching(/^0x[0-9a-f]{40}$/)]);
  });

  it('behavior: a burst far past the in-flight bound (4 here) is answered in full: reading pauses, then resumes', async () => {
    const client = await open(ws);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => client.call('eth_getBalance', [DEV0, 'latest']).then((m) => [i, m.result])));
    expect(answers.every(([, result]) => typeof result === 'string')).toBe(true);
  });

  it('behavior: newHeads, logs and newPendingTransactions notify after their eth_subscribe answer', async () => {
    const client = await open(ws);
    const heads = (await client.call('eth_subscribe', ['newHeads'])).result as string;
    const logs = (await client.call('eth_subscribe', ['logs', { address, topics: [topic0] }])).result as string;
    const pending = (await client.call('eth_subscribe', ['newPendingTransactions'])).result as string;
    const other = await open(ws);
    const unmatched = (await other.call('eth_subscribe', ['logs', { address: '0x00000000000000000000000000000000000000aa' }])).result as string;
    expect([heads, logs, pending]).toEqual([expect.stringMatching(/^0x[0-9a-f]{32}$/), expect.stringMatching(/^0x/), expect.stringMatching(/^0x/)]);
    const hash = await increment();
    const [log] = (await until(() => client.notifications(logs).length === 1 && client.notifications(logs))) as { transactionHash: string; removed: boolean; topics: string[] }[];
    expect(log).toMatchObject({ transactionHash: hash, removed: false, address: address.toLowerCase() });
    expect(log!.topics[0]).toBe(topic0);
    const [head] = (await until(() => client.notifications(heads).length >= 1 && client.notifications(heads))) as { number: string; hash: string; transactions?: unknown }[];
    expect(head!.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(head!.transactions).toBeUndefined();
    expect(client.notifications(pending)).toContain(hash);
    expect(other.notifications(unmatched)).toEqual([]);
    // eth_unsubscribe ends it: the next block is not sent.
    expect((await client.call('eth_unsubscribe', [heads])).result).toBe(true);
    expect((await client.call('eth_unsubscribe', [heads])).result).toBe(false);
    expect((await other.call('eth_unsubscribe', [logs])).result).toBe(false);
    const seen = client.notifications(heads).length;
    await increment();
    await until(() => client.notifications(logs).length === 2);
    expect(client.notifications(heads).length).toBe(seen);
  });

  it('behavior: logs of blocks that evm_revert removes are sent again with removed: true', async () => {
    const client = await open(ws);
    const logs = (await client.call('eth_subscribe', ['logs', { address }])).result as string;
    const snapshot = (await client.call('evm_snapshot')).result as string;
    const hash = await increment();
    await until(() => client.notifications(logs).length === 1);
    expect((await client.call('evm_revert', [snapshot])).result).toBe(true);
    const [added, removed] = (await until(() => client.notifications(logs).length === 2 && client.notifications(logs))) as { transactionHash: string; removed: boolean; blockHash: string }[];
    expect(added).toMatchObject({ transactionHash: hash, removed: false });
    expect(removed).toMatchObject({ transactionHash: hash, removed: true, blockHash: added!.blockHash });
  });

  it('error: unknown subscription types, bad filters, malformed JSON and HTTP subscriptions get JSON-RPC errors', async () => {
    const client = await open(ws);
    const unknown = await client.call('eth_subscribe', ['newBlocksPlease']);
    expect(unknown.error).toMatchObject({ code: -32602 });
    expect(unknown.error!.message).toContain('newBlocksPlease');
    const badFilter = await client.call('eth_subscribe', ['logs', { address: '0x12' }]);
    expect(badFilter.error).toMatchObject({ code: -32602 });
    expect(badFilter.error!.message).toContain('address');
    client.send('{"jsonrpc":"2.0","id":7,"method":');
    expect(await until(() => client.messages.find((m) => m.error?.code === -32700))).toMatchObject({ id: null });
    client.send(Buffer.from([0xff, 0xfe, 0x00]).toString('latin1'));
    await until(() => client.messages.filter((m) => m.error && m.id === null).length >= 2);
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    const viaHttp = await fetch(service.rpcUrl('enterprise'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }) });
    const body = (await viaHttp.json()) as Message;
    expect(body.error).toMatchObject({ code: -32601 });
    expect(body.error!.message).toContain('WebSocket');
  });

  it('error: the key is checked at the upgrade (401/403 as HTTP) and tiers and compute units apply per message', async () => {
    await expect(RawClient.open(ws.replace(/\/v2\/.*$/, '/v2/WrongWrongWrong1'))).rejects.toMatchObject({ status: 401 });
    await expect(RawClient.open(ws.replace(/\/v2\/.*$/, '/v2'))).rejects.toMatchObject({ status: 401 });
    await expect(RawClient.open(ws.replace('/v2/', '/nonet/v2/'))).rejects.toMatchObject({ status: 404 });
    const free = await open(service.wsUrl('free'));
    const denied = await free.call('trace_block', ['latest']);
    expect(denied.error).toMatchObject({ code: -32003 });
    expect(denied.error!.message).toContain('requires the payg tier');
    // 200 CU/s for the free key: a burst of calls runs into 429s, and the connection stays open.
    const answers = await Promise.all(Array.from({ length: 40 }, () => free.call('eth_getBalance', [DEV0, 'latest'])));
    expect(answers.some((a) => a.error?.code === 429)).toBe(true);
    expect(answers.some((a) => typeof a.result === 'string')).toBe(true);
    expect(free.closed).toBeUndefined();
  });

  it('error: a key revoked while connected is refused on its next message and the connection closes with 1008', async () => {
    const { record, apiKey } = await createApiKey(service.gateway.repo, { name: 'revoked soon', tier: 'payg' });
    const client = await open(ws.replace(/\/v2\/.*$/, `/v2/${apiKey}`));
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    await service.gateway.repo.revoke(record.id, Date.now());
    service.gateway.gateway.keyCache.invalidate(record.id);
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'eth_chainId' }));
    // Key errors answer as HTTP would, with id null (the request was not read).
    const refused = await until(() => client.messages.find((m) => m.error));
    expect(refused.error).toMatchObject({ code: -32003, message: expect.stringContaining('revoked') });
    await until(() => client.closed);
    expect(client.closed).toMatchObject({ code: 1008, reason: 'API key refused' });
  });

  it('error: subscriptions are bounded per connection and per key; closing a connection frees its share', async () => {
    const payg = service.wsUrl('payg');
    const a = await open(payg);
    for (let i = 0; i < 3; i++) expect((await a.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/);
    const fourth = await a.call('eth_subscribe', ['newHeads']);
    expect(fourth.error).toMatchObject({ code: -32005 });
    expect(fourth.error!.message).toContain('this connection (limit 3)');
    const b = await open(payg);
    for (let i = 0; i < 2; i++) expect((await b.call('eth_subscribe', ['newPendingTransactions'])).result).toMatch(/^0x/);
    const sixth = await b.call('eth_subscribe', ['newHeads']);
    expect(sixth.error!.message).toContain('this API key (limit 5');
    a.close();
    await until(() => a.closed);
    await until(async () => undefined, 50).catch(() => undefined);
    expect((await b.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/);
  });

  it('behavior: notifications are billed 0.04 CU a byte into the key\'s usage; past its budget the connection closes with 1008 naming it', async () => {
    // A free key of its own (200 CU/s here): eth_subscribe takes 20, each newHeads push ~70 (1.8 KB).
    const { record, apiKey } = await createApiKey(service.gateway.repo, { name: 'pushes', tier: 'free' });
    const client = await open(ws.replace(/\/v2\/.*$/, `/v2/${apiKey}`));
    const heads = (await client.call('eth_subscribe', ['newHeads'])).result as string;
    expect(heads).toMatch(/^0x/);
    const mined = await fetch(service.rpcUrl('enterprise'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x14'] }) });
    expect(((await mined.json()) as Message).error).toBeUndefined();
    await until(() => client.closed);
    expect(client.closed).toMatchObject({ code: 1008, reason: expect.stringContaining("free tier's 200 CU/s compute-unit budget") });
    const pushed = client.messages.filter((m) => m.method === 'eth_subscription');
    expect(pushed.length).toBeGreaterThan(0);
    expect(pushed.length).toBeLessThan(20);
    // What was sent is what was billed: floor(bytes × 0.04), fractions carried between pushes.
    const bytes = pushed.reduce((sum, m) => sum + Buffer.byteLength(JSON.stringify(m)), 0);
    const day = new Date().toISOString().slice(0, 10);
    const billed = Math.floor(bytes * 0.04);
    // Usage is written in batches: the row can hold the first push before the last one's batch lands.
    const row = await until(async () => (await service.gateway.repo.usage(record.id, day, day)).find((r) => r.method === 'eth_subscription' && r.computeUnits >= billed));
    expect(row).toMatchObject({ requests: 0, computeUnits: billed });
  });

  it('error: open connections are bounded per key by tier (free: 2 here) with a 429 at the upgrade; closing one frees its place', async () => {
    const { apiKey } = await createApiKey(service.gateway.repo, { name: 'many sockets', tier: 'free' });
    const url = ws.replace(/\/v2\/.*$/, `/v2/${apiKey}`);
    const first = await open(url);
    await open(url);
    const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once('open', () => reject(new Error('a third connection was accepted')));
      socket.once('error', () => undefined);
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += String(chunk)));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
    });
    expect(refused.status).toBe(429);
    const error = (JSON.parse(refused.body) as Message).error!;
    expect(error.code).toBe(-32005);
    expect(error.message).toContain('too many WebSocket connections for this API key: it holds 2 (limit 2 on the free tier)');
    // Other keys of the tier are not affected, and a closed connection frees its place.
    expect((await (await open(service.wsUrl('free'))).call('eth_chainId')).result).toBe('0x7a69');
    first.close();
    await until(() => first.closed);
    const again = await until(() => open(url).catch(() => false as const));
    expect((await again.call('eth_chainId')).result).toBe('0x7a69');
  });

  it('error: polled filters are bounded per key across its connections and HTTP (500), with -32005 naming the bound', async () => {
    const { apiKey } = await createApiKey(service.gateway.repo, { name: 'filters', tier: 'enterprise' });
    const url = ws.replace(/\/v2\/.*$/, `/v2/${apiKey}`);
    const install = async (client: RawClient, count: number) => {
      client.send(JSON.stringify(Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0', id: `f${i}`, method: 'eth_newBlockFilter' }))));
      const batch = (await until(() => client.messages.find((m) => Array.isArray(m)))) as unknown as Message[];
      return batch;
    };
    const [a, b] = [await open(url), await open(url)];
    expect((await install(a, 250)).every((m) => typeof m.result === 'string')).toBe(true);
    expect((await install(b, 250)).every((m) => typeof m.result === 'string')).toBe(true);
    const res = await fetch(url.replace(/^ws/, 'http'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_newFilter', params: [{}] }) });
    const refused = (await res.json()) as Message;
    expect(refused.error).toMatchObject({ code: -32005 });
    expect(refused.error!.message).toContain('too many filters: this key holds 500 (limit 500)');
    // Another key is not affected.
    expect((await (await open(ws)).call('eth_newBlockFilter')).result).toMatch(/^0x/);
  });

  it('error: a message over the size limit closes with 1009; the service keeps answering', async () => {
    const client = await open(ws);
    client.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(70 * 1024)] }));
    await until(() => client.closed);
    expect(client.closed!.code).toBe(1009);
    const again = await open(ws);
    expect((await again.call('eth_chainId')).result).toBe('0x7a69');
  });

  it('error: a malformed frame (unmasked from a client) closes with 1002; other connections keep working', async () => {
    const client = await open(ws);
    const socket = (client.ws as unknown as { _socket: import('node:net').Socket })._socket;
    // A text frame "hello" without the mask every client frame must carry (RFC 6455 5.1).
    socket.write(Buffer.from([0x81, 0x05, ...Buffer.from('hello')]));
    await until(() => client.closed);
    expect(client.closed!.code).toBe(1002);
    const again = await open(ws);
    expect((await again.call('eth_chainId')).result).toBe('0x7a69');
  });

  it('error: a client that never reads is closed with 1008 and a reason once its buffer is full', async () => {
    const client = await open(ws);
    client.ws.pause();
    // Each message asks for 50 full blocks (a few KiB each): far more than the buffer holds.
    const batch = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: ['0x1', true] })));
    for (let i = 0; i < 200; i++) client.send(batch);
    const probe = await open(ws);
    await until(async () => undefined, 100).catch(() => undefined);
    expect((await probe.call('eth_chainId')).result).toBe('0x7a69');
    client.ws.resume();
    await until(() => client.closed, 15_000);
    expect(client.closed).toMatchObject({ code: 1008, reason: expect.stringContaining('client not reading') });
  });

  it('error: a pass-through network answers plain calls and refuses subscriptions clearly', async () => {
    const client = await open(ws.replace('/v2/', '/upstreamish/v2/'));
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    const refused = await client.call('eth_subscribe', ['newHeads']);
    expect(refused.error).toMatchObject({ code: -32601 });
    expect(refused.error!.message).toContain('not served on network upstreamish');
  });

  // Last: it takes the chain back to genesis.
  it('behavior: anvil_reset sends the logs of every block it drops again with removed: true', async () => {
    // A key of its own: the suite's key holds its share of subscriptions already.
    const { apiKey } = await createApiKey(service.gateway.repo, { name: 'reset', tier: 'enterprise' });
    const client = await open(ws.replace(/\/v2\/.*$/, `/v2/${apiKey}`));
    const logs = (await client.call('eth_subscribe', ['logs', { address }])).result as string;
    const hash = await increment();
    await until(() => client.notifications(logs).length === 1);
    expect((await client.call('anvil_reset')).error).toBeUndefined();
    // Every dropped block's logs come (earlier tests' too, newest block first), this one's first.
    const all = (await until(() => client.notifications(logs).length >= 3 && client.notifications(logs))) as { transactionHash: string; removed: boolean; blockNumber: string }[];
    expect(all[1]).toMatchObject({ transactionHash: hash, removed: true });
    expect(all.slice(1).every((l) => l.removed)).toBe(true);
    const numbers = all.slice(1).map((l) => Number(l.blockNumber));
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
  });
});
