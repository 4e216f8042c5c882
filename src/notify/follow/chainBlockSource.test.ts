import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import type { Hex } from '../../rpc/hex.js';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { startTestListener, type TestListener } from '../testing/testListener.js';
import type { WebhookRecord } from '../webhooks/webhookTypes.js';
import { TRANSFER_BATCH_TOPIC, TRANSFER_TOPIC } from '../extract/transfers.js';
import { createChainBlockSource } from './chainBlockSource.js';
import { createChainFollower, type ChainFollower } from './chainFollower.js';
import { createJsonRpcBlockSource } from './jsonRpcBlockSource.js';
import { createActivityClient, encodeActivityCall, type ActivityClient, type ActivityDeployment } from './testing/activityContracts.js';
import { openEmbeddedChain, type EmbeddedChain } from './testing/embeddedChain.js';
import { createTestWebhook, followerTestDatabases, notificationsOf } from './testing/followerHarness.js';
import type { BlockSource } from './blockSource.js';

const NETWORK = 'TRACEHOOK_DEV';
const ZERO = '0x0000000000000000000000000000000000000000';
type Activity = Record<string, unknown> & { log: Record<string, unknown> | null; removed?: boolean };
type Body = { webhookId: string; id: string; type: string; event: Record<string, unknown> & { activity: Activity[] } };
const pad = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;

describe('chain follower on the embedded chain', () => {
  let chain: EmbeddedChain;
  let client: ActivityClient;
  let k: ActivityDeployment;
  let a: Hex, b: Hex, c: Hex;
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let listener: TestListener;
  let notifier: Notifier;
  let source: BlockSource;
  let follower: ChainFollower;
  let addressHook: WebhookRecord, nftHook: WebhookRecord, customHook: WebhookRecord;

  beforeAll(async () => {
    chain = await openEmbeddedChain();
    client = await createActivityClient(chain.request);
    [a, b, c] = client.accounts as [Hex, Hex, Hex];
    k = await client.deploy(a);
    ({ db, cleanup } = await followerTestDatabases.find((t) => t.name === 'sqlite')!.open());
    listener = await startTestListener();
    notifier = createNotifier({ db, pollIntervalMs: 20, retryBaseDelayMs: 50 });
    source = createChainBlockSource({ chain: chain.chain, traceBlock: chain.traceBlock });
  });
  afterAll(async () => {
    await follower?.stop();
    await notifier?.stop();
    await listener?.close();
    await cleanup?.();
    await chain?.dispose();
  });

  const received = (hook: WebhookRecord) => listener.requests.map((r) => JSON.parse(r.body) as Body).filter((x) => x.webhookId === hook.id);
  const send = async (tx: Parameters<ActivityClient['send']>[0]) => {
    const hash = await client.send(tx);
    return { hash, block: (await client.receipt(hash)).blockNumber };
  };

  it('default: blocks convert to the same data the chain serves over eth_getBlockByNumber and eth_getBlockReceipts', async () => {
    await send({ from: a, to: b, value: parseEther('0.1') });
    const viaRpc = createJsonRpcBlockSource({ request: chain.request, traces: false });
    const head = await source.head();
    expect(head).toEqual(await viaRpc.head());
    for (let n = 0n; n <= head.number; n++) {
      const ours = (await source.blockByNumber(n))!;
      const served = (await viaRpc.blockByNumber(n))!;
      for (const key of Object.keys(ours.header) as (keyof typeof ours.header)[]) expect([key, ours.header[key]]).toEqual([key, served.header[key]]);
      // Compare the fields BlockData carries (the chain also serves newer extras such as blockTimestamp).
      ours.receipts.forEach((receipt, i) => {
        const other = served.receipts[i]!;
        for (const key of Object.keys(receipt) as (keyof typeof receipt)[]) {
          if (key !== 'logs') expect([n, key, receipt[key]]).toEqual([n, key, other[key]]);
        }
        receipt.logs.forEach((log, j) => {
          for (const key of Object.keys(log) as (keyof typeof log)[]) expect([n, j, key, log[key]]).toEqual([n, j, key, other.logs[j]![key]]);
        });
      });
      ours.transactions.forEach((tx, i) => {
        for (const key of Object.keys(tx) as (keyof typeof tx)[]) expect([n, key, tx[key]]).toEqual([n, key, served.transactions[i]![key]]);
      });
      expect(ours.callFrames).toHaveLength(ours.transactions.length);
    }
  });

  it('behavior: every transfer kind reaches a real listener with every field right', async () => {
    addressHook = await createTestWebhook(db, { type: 'ADDRESS_ACTIVITY', addresses: [b, c], url: listener.url });
    nftHook = await createTestWebhook(db, { type: 'NFT_ACTIVITY', nftFilters: [{ contractAddress: k.nft, tokenId: null }, { contractAddress: k.multi, tokenId: '2' }], url: listener.url });
    customHook = await createTestWebhook(db, {
      type: 'GRAPHQL',
      graphqlQuery: `{ block { number callTracerTraces(filter: {addresses: [{to: ["${c}"]}]}) { from { address } to { address } value type traceAddressPath } } }`,
      skipEmptyMessages: true,
      url: listener.url,
    });
    follower = createChainFollower({ network: NETWORK, db, source, outbox: notifier, pollIntervalMs: 1000 });
    await follower.syncOnce();
    notifier.start();
    follower.start();

    const eth = await send({ from: a, to: b, value: parseEther('1.5') });
    const mint = await send({ from: a, to: k.token, data: encodeActivityCall('ActivityToken', 'mint', [b, 3_000_000n]) });
    const move = await send({ from: b, to: k.token, data: encodeActivityCall('ActivityToken', 'transfer', [c, 1_000_000n]) });
    const burn = await send({ from: c, to: k.token, data: encodeActivityCall('ActivityToken', 'burn', [500_000n]) });
    const split = await send({ from: a, to: k.router1, data: encodeActivityCall('ActivityRouter', 'split', [[b, c], [parseEther('1'), parseEther('2')]]), value: parseEther('3') });
    const hop = await send({ from: a, to: k.router1, data: encodeActivityCall('ActivityRouter', 'hop', [k.router2, c]), value: parseEther('0.25') });
    const nftMint = await send({ from: a, to: k.nft, data: encodeActivityCall('ActivityNft', 'mint', [b, 7n]) });
    const nftMove = await send({ from: b, to: k.nft, data: encodeActivityCall('ActivityNft', 'transferFrom', [b, c, 7n]) });
    const batchMint = await send({ from: a, to: k.multi, data: encodeActivityCall('ActivityMulti', 'mintBatch', [c, [1n, 2n], [10n, 20n]]) });
    const batchMove = await send({ from: c, to: k.multi, data: encodeActivityCall('ActivityMulti', 'safeBatchTransferFrom', [c, b, [1n, 2n], [3n, 4n], '0x']) });
    const failed = await send({ from: a, to: k.router1, data: encodeActivityCall('ActivityRouter', 'split', [[b], []]), value: parseEther('1'), gas: 200_000n });
    expect((await client.receipt(failed.hash)).status).toBe('0x0');
    const delegated = await send({ from: a, to: k.router1, data: encodeActivityCall('ActivityRouter', 'delegateSplit', [k.router2, b, parseEther('0.1')]), value: parseEther('0.1') });

    await listener.waitFor(() => received(addressHook).length >= 11 && received(nftHook).length >= 4 && received(customHook).length >= 2, 20_000);
    const activity = received(addressHook).map((x) => x.event.activity);
    expect(received(addressHook).every((x) => x.type === 'ADDRESS_ACTIVITY' && x.event.network === NETWORK)).toBe(true);

    expect(activity[0]).toEqual([
      {
        fromAddress: a,
        toAddress: b,
        blockNum: eth.block,
        hash: eth.hash,
        value: 1.5,
        asset: 'ETH',
        category: 'external',
        rawContract: { rawValue: '0x14d1120d7b160000', address: null, decimals: 18 },
        erc721TokenId: null,
        erc1155Metadata: null,
        typeTraceAddress: null,
        log: null,
      },
    ]);
    const mintLog = (await chain.request('eth_getTransactionReceipt', [mint.hash])) as { logs: Record<string, unknown>[]; blockHash: Hex };
    expect(activity[1]).toEqual([
      {
        fromAddress: ZERO,
        toAddress: b,
        blockNum: mint.block,
        hash: mint.hash,
        value: 3,
        asset: 'ATK',
        category: 'token',
        rawContract: { rawValue: pad('0x2dc6c0'), address: k.token, decimals: 6 },
        erc721TokenId: null,
        erc1155Metadata: null,
        typeTraceAddress: null,
        log: {
          address: k.token,
          topics: [TRANSFER_TOPIC, pad(ZERO), pad(b)],
          data: pad('0x2dc6c0'),
          blockNumber: mint.block,
          transactionHash: mint.hash,
          transactionIndex: '0x0',
          blockHash: mintLog.blockHash,
          logIndex: '0x0',
          removed: false,
        },
      },
    ]);
    expect(mintLog.logs[0]).toMatchObject({ logIndex: '0x0', removed: false });
    const brief = (list: Activity[]) => list.map((x) => [x.category, x.fromAddress, x.toAddress, x.value, x.asset, x.typeTraceAddress, x.hash, x.blockNum]);
    expect(brief(activity[2]!)).toEqual([['token', b, c, 1, 'ATK', null, move.hash, move.block]]);
    expect(brief(activity[3]!)).toEqual([['token', c, ZERO, 0.5, 'ATK', null, burn.hash, burn.block]]);
    expect(brief(activity[4]!)).toEqual([
      ['internal', k.router1, b, 1, 'ETH', 'call_0', split.hash, split.block],
      ['internal', k.router1, c, 2, 'ETH', 'call_1', split.hash, split.block],
    ]);
    expect(activity[4]![0]!.rawContract).toEqual({ rawValue: '0xde0b6b3a7640000', address: null, decimals: 18 });
    expect(brief(activity[5]!)).toEqual([['internal', k.router2, c, 0.25, 'ETH', 'call_0_0', hop.hash, hop.block]]);
    expect(brief(activity[6]!)).toEqual([['erc721', ZERO, b, null, 'ANFT', null, nftMint.hash, nftMint.block]]);
    expect(activity[6]![0]).toMatchObject({ erc721TokenId: '0x7', erc1155Metadata: null, rawContract: { rawValue: '0x', address: k.nft, decimals: null } });
    expect(brief(activity[7]!)).toEqual([['erc721', b, c, null, 'ANFT', null, nftMove.hash, nftMove.block]]);
    expect(activity[8]![0]).toMatchObject({ category: 'erc1155', hash: batchMint.hash, fromAddress: ZERO, toAddress: c, asset: 'AMULTI', value: null, erc721TokenId: null, erc1155Metadata: [{ tokenId: '0x1', value: '0xa' }, { tokenId: '0x2', value: '0x14' }] });
    expect(activity[8]![0]!.log).toMatchObject({ topics: [TRANSFER_BATCH_TOPIC, pad(a), pad(ZERO), pad(c)], removed: false });
    expect(activity[9]![0]).toMatchObject({ category: 'erc1155', fromAddress: c, toAddress: b, hash: batchMove.hash, erc1155Metadata: [{ tokenId: '0x1', value: '0x3' }, { tokenId: '0x2', value: '0x4' }] });
    // The failed transaction produced nothing; the DELEGATECALL frame moved nothing, the CALL inside it did.
    expect(brief(activity[10]!)).toEqual([['internal', k.router1, b, 0.1, 'ETH', 'call_0_0', delegated.hash, delegated.block]]);
    expect(activity).toHaveLength(11);

    const nft = received(nftHook).map((x) => x.event.activity);
    expect(nft.map((list) => list.map((x) => [x.category, x.contractAddress, x.fromAddress, x.toAddress, x.erc721TokenId, x.erc1155Metadata]))).toEqual([
      [['erc721', k.nft, ZERO, b, '0x7', null]],
      [['erc721', k.nft, b, c, '0x7', null]],
      [['erc1155', k.multi, ZERO, c, null, [{ tokenId: '0x2', value: '0x14' }]]],
      [['erc1155', k.multi, c, b, null, [{ tokenId: '0x2', value: '0x4' }]]],
    ]);
    expect(nft[0]![0]).toMatchObject({ blockNum: nftMint.block, hash: nftMint.hash, log: { address: k.nft, data: '0x', removed: false } });

    const custom = received(customHook).map((x) => x.event);
    expect(custom).toEqual([
      {
        data: { block: { number: Number(split.block), callTracerTraces: [{ from: { address: k.router1 }, to: { address: c }, value: '0x1bc16d674ec80000', type: 'CALL', traceAddressPath: [1] }] } },
        sequenceNumber: '1',
        network: NETWORK,
      },
      {
        data: { block: { number: Number(hop.block), callTracerTraces: [{ from: { address: k.router2 }, to: { address: c }, value: '0x3782dace9d90000', type: 'CALL', traceAddressPath: [0, 0] }] } },
        sequenceNumber: '2',
        network: NETWORK,
      },
    ]);
  });

  it('behavior: evm_revert retracts the dropped block at once, then the new branch is notified', async () => {
    const before = received(addressHook).length;
    const snapshot = (await chain.request('evm_snapshot', [])) as Hex;
    const dropped = await send({ from: a, to: b, value: parseEther('4') });
    await listener.waitFor(() => received(addressHook).length >= before + 1);
    expect(await chain.request('evm_revert', [snapshot])).toBe(true);
    await listener.waitFor(() => received(addressHook).length >= before + 2);
    const retraction = received(addressHook)[before + 1]!;
    expect(retraction.event.activity).toEqual([{ ...received(addressHook)[before]!.event.activity[0], removed: true }]);
    expect(retraction.event.activity[0]).toMatchObject({ hash: dropped.hash, blockNum: dropped.block, removed: true });
    const kept = await send({ from: a, to: c, value: parseEther('5') });
    expect(kept.block).toBe(dropped.block);
    await listener.waitFor(() => received(addressHook).length >= before + 3);
    expect(received(addressHook)[before + 2]!.event.activity).toMatchObject([{ toAddress: c, hash: kept.hash, value: 5, category: 'external' }]);
  });

  it('behavior: a restart in the middle of a run leaves no gap and no duplicate', async () => {
    await follower.stop();
    const before = (await notificationsOf(db, addressHook.id)).length;
    const whileDown = [];
    for (let i = 1; i <= 3; i++) whileDown.push(await send({ from: a, to: b, value: BigInt(i) * 10n ** 17n }));
    follower = createChainFollower({ network: NETWORK, db, source, outbox: notifier, pollIntervalMs: 1000 });
    follower.start();
    const after = await send({ from: a, to: c, value: 10n ** 17n });
    await listener.waitFor(() => received(addressHook).length >= before + 4);
    const stored = await notificationsOf(db, addressHook.id);
    const hashes = stored.slice(before).map((n) => (n.body.event.activity as Activity[])[0]!.hash);
    expect(hashes).toEqual([...whileDown.map((x) => x.hash), after.hash]);
    // Every event went out exactly once, in order.
    const ids = received(addressHook).map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(received(addressHook).slice(-4).map((x) => x.event.activity[0]!.hash)).toEqual(hashes);
  });
});
