// eth_getLogs: block hash or range (tags, defaults, clamping), addresses single or listed, topic
// positions with null and OR arrays, and the errors for bad ranges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainRpcFixture, COUNTER, COUNTER_ABI, openChainRpcFixture, rpc, rpcResult } from './testing/chainRpc.js';

type Log = { address: string; topics: string[]; blockNumber: string; logIndex: string; transactionHash: string; removed: boolean; blockHash: string };
const topicOf = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;

describe('eth_getLogs', () => {
  let f: ChainRpcFixture;
  let other: string;
  beforeAll(async () => {
    f = await openChainRpcFixture({ maxLogBlockRange: 50 });
    // A second Counter (block 4) incremented by account 3 (block 5), then the first one by account 1 (block 6).
    const deploy = await rpcResult<string>(f.table, 'eth_sendTransaction', [{ from: f.accounts[3], data: COUNTER.bytecode }]);
    other = (await rpcResult<{ contractAddress: string }>(f.table, 'eth_getTransactionReceipt', [deploy])).contractAddress;
    await rpcResult(f.table, 'eth_sendTransaction', [{ from: f.accounts[3], to: other, data: COUNTER_ABI.increment }]);
    await rpcResult(f.table, 'eth_sendTransaction', [{ from: f.accounts[1], to: f.counter, data: COUNTER_ABI.increment }]);
  });
  afterAll(() => f.dispose());

  const logs = (filter: Record<string, unknown>) => rpcResult<Log[]>(f.table, 'eth_getLogs', [filter]);
  const blocks = (list: Log[]) => list.map((l) => l.blockNumber);

  it('default: without a range only the latest block is searched', async () => {
    expect(blocks(await logs({}))).toEqual(['0x6']);
  });

  it('args: ranges with tags and numbers, clamped to the head', async () => {
    expect(blocks(await logs({ fromBlock: 'earliest', toBlock: 'latest' }))).toEqual(['0x2', '0x3', '0x5', '0x6']);
    expect(blocks(await logs({ fromBlock: '0x3', toBlock: '0x5' }))).toEqual(['0x3', '0x5']);
    expect(blocks(await logs({ fromBlock: '0x3', toBlock: '0x20' }))).toEqual(['0x3', '0x5', '0x6']);
    expect(await logs({ fromBlock: '0x20', toBlock: '0x30' })).toEqual([]);
    expect(blocks(await logs({ fromBlock: '0x0', toBlock: 'pending' }))).toHaveLength(4);
  });

  it('args: address as a value or a list, topics with null and OR arrays', async () => {
    const all = { fromBlock: '0x0', toBlock: 'latest' };
    expect(blocks(await logs({ ...all, address: f.counter }))).toEqual(['0x2', '0x3', '0x6']);
    expect(blocks(await logs({ ...all, address: [other] }))).toEqual(['0x5']);
    expect(blocks(await logs({ ...all, address: [f.counter, other] }))).toHaveLength(4);
    expect(blocks(await logs({ ...all, address: [] }))).toHaveLength(4);
    expect(blocks(await logs({ ...all, topics: [COUNTER_ABI.incrementedTopic, topicOf(f.accounts[1]!)] }))).toEqual(['0x2', '0x6']);
    expect(blocks(await logs({ ...all, topics: [null, [topicOf(f.accounts[2]!), topicOf(f.accounts[3]!)]] }))).toEqual(['0x3', '0x5']);
    expect(blocks(await logs({ ...all, topics: [null, [topicOf(f.accounts[2]!), null]] }))).toHaveLength(4);
    expect(await logs({ ...all, topics: [`0x${'00'.repeat(32)}`] })).toEqual([]);
    expect(await logs({ ...all, address: other, topics: [null, topicOf(f.accounts[1]!)] })).toEqual([]);
  });

  it('behavior: a block hash filter returns that block\'s logs with full positions', async () => {
    const block = await rpcResult<{ hash: string }>(f.table, 'eth_getBlockByNumber', ['0x3', false]);
    const found = await logs({ blockHash: block.hash });
    expect(found).toEqual([expect.objectContaining({ blockHash: block.hash, blockNumber: '0x3', logIndex: '0x0', removed: false, address: f.counter })]);
    const receipt = await rpcResult<{ logs: Log[] }>(f.table, 'eth_getTransactionReceipt', [found[0]!.transactionHash]);
    expect(receipt.logs).toEqual(found);
  });

  it('error: unknown block hash, hash with a range, reversed and oversized ranges', async () => {
    expect(await rpc(f.table, 'eth_getLogs', [{ blockHash: `0x${'77'.repeat(32)}` }])).toMatchObject({ error: { code: -32000, message: expect.stringContaining('unknown block') } });
    expect(await rpc(f.table, 'eth_getLogs', [{ blockHash: `0x${'77'.repeat(32)}`, fromBlock: '0x1' }])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('blockHash') } });
    expect(await rpc(f.table, 'eth_getLogs', [{ fromBlock: '0x5', toBlock: '0x2' }])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('invalid block range') } });
    for (let i = 0; i < 50; i++) await rpcResult(f.table, 'evm_mine');
    expect(await rpc(f.table, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])).toEqual({
      error: { code: -32005, message: 'eth_getLogs: block range of 57 blocks exceeds the limit of 50; narrow fromBlock/toBlock' },
    });
    expect(await rpc(f.table, 'eth_getLogs', [{ topics: [null, null, null, null, null] }])).toMatchObject({ error: { code: -32602 } });
  });
});
