import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import type { Hex } from '../../rpc/hex.js';
import type { SqlDatabase } from '../../store/sql.js';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { startTestListener, type TestListener } from '../testing/testListener.js';
import { createChainFollower, type ChainFollower } from './chainFollower.js';
import { createHttpJsonRpc, createJsonRpcBlockSource, type JsonRpcRequest } from './jsonRpcBlockSource.js';
import { createActivityClient, encodeActivityCall, type ActivityClient, type ActivityDeployment } from './testing/activityContracts.js';
import { createTestWebhook, followerTestDatabases } from './testing/followerHarness.js';

const NETWORK = 'TRACEHOOK_DEV';
type Activity = Record<string, unknown> & { log: Record<string, unknown> | null; removed?: boolean };
type Body = { webhookId: string; type: string; event: { network: string; activity: Activity[] } };

describe('chain follower over JSON-RPC (real anvil, HTTP delivery)', () => {
  let anvil: AnvilProcess;
  let rpc: JsonRpcRequest;
  let client: ActivityClient;
  let contracts: ActivityDeployment;
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let listener: TestListener;
  let notifier: Notifier;
  let follower: ChainFollower;
  let a: Hex, b: Hex, c: Hex, d: Hex;

  beforeAll(async () => {
    anvil = await startAnvil();
    rpc = createHttpJsonRpc(anvil.url);
    client = await createActivityClient(rpc);
    [a, b, c, d] = client.accounts as [Hex, Hex, Hex, Hex];
    contracts = await client.deploy(a);
    ({ db, cleanup } = await followerTestDatabases.find((t) => t.name === 'sqlite')!.open());
    listener = await startTestListener();
    notifier = createNotifier({ db, pollIntervalMs: 20, retryBaseDelayMs: 50 });
  });
  afterAll(async () => {
    await follower?.stop();
    await notifier?.stop();
    await listener?.close();
    await cleanup?.();
    await anvil?.stop();
  });

  const bodies = () => listener.requests.map((r) => JSON.parse(r.body) as Body);
  /** Sends and waits until mined, so each transfer gets a block (and a notification) of its own. */
  const mined = async (tx: Parameters<ActivityClient['send']>[0]) => {
    const hash = await client.send(tx);
    await client.receipt(hash);
    return hash;
  };

  it('behavior: transfers never seen before arrive with every field, and a reorg retracts first', async () => {
    const watcher = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b, d, c], url: listener.url });
    follower = createChainFollower({ network: NETWORK, db, source: createJsonRpcBlockSource({ request: rpc }), outbox: notifier, pollIntervalMs: 25 });
    notifier.start();
    follower.start();
    await new Promise((r) => setTimeout(r, 100));

    const ethHash = await mined({ from: a, to: b, value: parseEther('0.75') });
    await mined({ from: a, to: contracts.token, data: encodeActivityCall('ActivityToken', 'mint', [b, 2_500_000n]) });
    const splitHash = await mined({ from: a, to: contracts.router1, data: encodeActivityCall('ActivityRouter', 'split', [[b], [parseEther('0.5')]]), value: parseEther('0.5') });
    await listener.waitFor((r) => r.length >= 3);
    const [eth, mint, split] = bodies();
    const ethBlock = (await client.receipt(ethHash)).blockNumber;
    expect(eth!.webhookId).toBe(watcher.id);
    expect(eth!.event).toEqual({
      network: NETWORK,
      activity: [
        {
          fromAddress: a,
          toAddress: b,
          blockNum: ethBlock,
          hash: ethHash,
          value: 0.75,
          asset: 'ETH',
          category: 'external',
          rawContract: { rawValue: '0xa688906bd8b0000', address: null, decimals: 18 },
          erc721TokenId: null,
          erc1155Metadata: null,
          typeTraceAddress: null,
          log: null,
        },
      ],
    });
    expect(mint!.event.activity[0]).toMatchObject({
      fromAddress: '0x0000000000000000000000000000000000000000',
      toAddress: b,
      value: 2.5,
      asset: 'ATK',
      category: 'token',
      rawContract: { rawValue: '0x00000000000000000000000000000000000000000000000000000000002625a0', address: contracts.token, decimals: 6 },
      log: { address: contracts.token, removed: false },
    });
    expect(split!.event.activity.map((x) => [x.category, x.fromAddress, x.toAddress, x.value, x.typeTraceAddress, x.hash])).toEqual([
      ['internal', contracts.router1, b, 0.5, 'call_0', splitHash],
    ]);

    // Reorg: a block paying d is mined, notified, then evm_revert drops it and another branch pays c.
    const snapshot = (await rpc('evm_snapshot', [])) as Hex;
    const orphanHash = await mined({ from: a, to: d, value: parseEther('1') });
    await listener.waitFor((r) => r.length >= 4);
    expect(bodies()[3]!.event.activity[0]).toMatchObject({ toAddress: d, hash: orphanHash });
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    const newHash = await mined({ from: a, to: c, value: parseEther('2') });
    await listener.waitFor((r) => r.length >= 6);
    const [retraction, replacement] = bodies().slice(4);
    expect(retraction!.event.activity).toEqual([{ ...bodies()[3]!.event.activity[0], removed: true }]);
    expect(replacement!.event.activity[0]).toMatchObject({ toAddress: c, hash: newHash, value: 2 });
    expect('removed' in replacement!.event.activity[0]!).toBe(false);
    expect(listener.requests.every((r) => r.status === 200)).toBe(true);
  });
});

describe('JSON-RPC block source, no webhook (real anvil)', () => {
  let anvil: AnvilProcess;
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    anvil = await startAnvil();
    ({ db, cleanup } = await followerTestDatabases.find((t) => t.name === 'sqlite')!.open());
  });
  afterAll(async () => {
    await cleanup?.();
    await anvil?.stop();
  });

  it('behavior: blocks no webhook can want cost the node one header each: no receipts, no traces', async () => {
    const http = createHttpJsonRpc(anvil.url);
    const asked: string[] = [];
    const request: JsonRpcRequest = (method, params) => (asked.push(method), http(method, params));
    const outbox = createNotifier({ db, pollIntervalMs: 60_000 });
    const quiet = createChainFollower({ network: 'QUIET', db, source: createJsonRpcBlockSource({ request }), outbox });
    await quiet.syncOnce();
    await http('anvil_mine', ['0x3']);
    asked.length = 0;
    expect(await quiet.syncOnce()).toMatchObject({ blocks: 3, events: 0 });
    expect(new Set(asked)).toEqual(new Set(['eth_getBlockByNumber']));
    const head = (await http('eth_getBlockByNumber', ['latest', false])) as { number: Hex; hash: Hex };
    expect(quiet.cursor()).toEqual({ number: BigInt(head.number), hash: head.hash.toLowerCase() });
    await quiet.stop();
    await outbox.stop();
  });

  it('error: a header answer about another block is refused, naming what came back', async () => {
    const http = createHttpJsonRpc(anvil.url);
    const lying: JsonRpcRequest = async (method, params) => (method === 'eth_getBlockByNumber' ? http(method, ['0x0', false]) : http(method, params));
    await http('anvil_mine', ['0x1']);
    await expect(createJsonRpcBlockSource({ request: lying }).headerByNumber!(1n)).rejects.toThrow(/inconsistent data: eth_getBlockByNumber\(0x1\) answered \{"number":"0x0"/);
  });
});
