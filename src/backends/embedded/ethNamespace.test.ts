// eth_* over the method table: block tags and EIP-1898 ids everywhere, null for unknown blocks and
// transactions, standard error codes naming the bad parameter, and geth/anvil object shapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainRpcFixture, COUNTER, openChainRpcFixture, rpc, rpcResult } from './testing/chainRpc.js';

describe('eth namespace', () => {
  let f: ChainRpcFixture;
  beforeAll(async () => {
    f = await openChainRpcFixture();
  });
  afterAll(() => f.dispose());

  it('default: chain id, block number, accounts, fees, client version', async () => {
    expect(await rpcResult(f.table, 'eth_chainId')).toBe('0x7a69');
    expect(await rpcResult(f.table, 'net_version')).toBe('31337');
    expect(await rpcResult(f.table, 'eth_blockNumber')).toBe('0x3');
    expect(await rpcResult<string[]>(f.table, 'eth_accounts')).toHaveLength(10);
    expect((await rpcResult<string[]>(f.table, 'eth_accounts'))[0]).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(await rpcResult(f.table, 'eth_maxPriorityFeePerGas')).toBe('0x3b9aca00');
    expect(await rpcResult(f.table, 'web3_clientVersion')).toBe('tracehook/test');
    expect(await rpcResult(f.table, 'web3_sha3', ['0x'])).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    const gasPrice = BigInt(await rpcResult<string>(f.table, 'eth_gasPrice'));
    const head = await rpcResult<{ baseFeePerGas: string }>(f.table, 'eth_getBlockByNumber', ['latest', false]);
    expect(gasPrice).toBeGreaterThan(BigInt(head.baseFeePerGas) - 1n);
  });

  it('args: every block tag, hex numbers and EIP-1898 objects select the right block', async () => {
    const byTag = async (tag: unknown) => (await rpcResult<{ number: string } | null>(f.table, 'eth_getBlockByNumber', [tag, false]))?.number;
    expect(await byTag('latest')).toBe('0x3');
    expect(await byTag('pending')).toBe('0x3');
    expect(await byTag('safe')).toBe('0x3');
    expect(await byTag('finalized')).toBe('0x3');
    expect(await byTag('earliest')).toBe('0x0');
    expect(await byTag('0x2')).toBe('0x2');
    const block1 = await rpcResult<{ hash: string }>(f.table, 'eth_getBlockByNumber', ['0x1', false]);
    const counterAt = async (block: unknown) => rpcResult<string>(f.table, 'eth_getStorageAt', [f.counter, '0x0', block]);
    expect(await counterAt('latest')).toBe(`0x${'2'.padStart(64, '0')}`);
    expect(await counterAt('0x2')).toBe(`0x${'1'.padStart(64, '0')}`);
    expect(await counterAt({ blockNumber: '0x1' })).toBe(`0x${'0'.padStart(64, '0')}`);
    expect(await counterAt({ blockHash: block1.hash })).toBe(`0x${'0'.padStart(64, '0')}`);
    expect(await counterAt(block1.hash)).toBe(`0x${'0'.padStart(64, '0')}`);
    expect(await rpcResult(f.table, 'eth_getCode', [f.counter, 'earliest'])).toBe('0x');
    expect(await rpcResult(f.table, 'eth_getCode', [f.counter, 'safe'])).toBe(COUNTER.deployedBytecode);
    expect(await rpcResult(f.table, 'eth_getTransactionCount', [f.accounts[0], 'finalized'])).toBe('0x1');
    expect(await rpcResult(f.table, 'eth_getTransactionCount', [f.accounts[0], 'pending'])).toBe('0x1');
    expect(await rpcResult(f.table, 'eth_getTransactionCount', [f.accounts[0], '0x0'])).toBe('0x0');
    expect(await rpcResult(f.table, 'eth_getBalance', [f.accounts[9]])).toBe('0x21e19e0c9bab2400000');
    expect(await rpcResult(f.table, 'eth_getBlockTransactionCountByNumber', ['earliest'])).toBe('0x0');
    expect(await rpcResult(f.table, 'eth_getBlockTransactionCountByNumber', ['latest'])).toBe('0x1');
    expect(await rpcResult(f.table, 'eth_getBlockTransactionCountByHash', [block1.hash])).toBe('0x1');
  });

  it('behavior: unknown blocks and transactions give null, as geth and anvil do', async () => {
    const unknown = `0x${'ab'.repeat(32)}`;
    for (const [method, params] of [
      ['eth_getBlockByNumber', ['0x99', false]],
      ['eth_getBlockByHash', [unknown, true]],
      ['eth_getTransactionByHash', [unknown]],
      ['eth_getTransactionReceipt', [unknown]],
      ['eth_getBlockTransactionCountByNumber', ['0x99']],
      ['eth_getBlockTransactionCountByHash', [unknown]],
      ['eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x5']],
      ['eth_getTransactionByBlockHashAndIndex', [unknown, '0x0']],
      ['eth_getBlockReceipts', ['0x99']],
    ] as const) {
      expect(await rpc(f.table, method, [...params]), method).toEqual({ result: null });
    }
  });

  it('error: state at an unknown block, bad parameters and unknown methods get standard codes', async () => {
    expect(await rpc(f.table, 'eth_getBalance', [f.accounts[0], '0x99'])).toEqual({ error: { code: -32602, message: 'block 0x99 not found: the chain head is 0x3' } });
    expect(await rpc(f.table, 'eth_getBalance', [f.accounts[0], `0x${'cd'.repeat(32)}`])).toMatchObject({ error: { code: -32001 } });
    expect(await rpc(f.table, 'eth_getBalance', ['0x12', 'latest'])).toEqual({
      error: { code: -32602, message: 'eth_getBalance: invalid argument 0 (address): expected a 20-byte hex address' },
    });
    expect(await rpc(f.table, 'eth_getBalance', [f.accounts[0], 'newest'])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('invalid argument 1 (block)') } });
    expect(await rpc(f.table, 'eth_getBalance', [])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('missing value for required argument 0 (address)') } });
    expect(await rpc(f.table, 'eth_getBlockByNumber', ['0x01', false])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc(f.table, 'eth_getBlockByNumber', ['latest', 'yes'])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('fullTransactions') } });
    expect(await rpc(f.table, 'eth_sendRawTransaction', ['0xzz'])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc(f.table, 'eth_bogus', [])).toMatchObject({ error: { code: -32601 } });
    expect(await rpc(f.table, 'eth_sendTransaction', [{ from: `0x${'11'.repeat(20)}`, to: f.accounts[1] }])).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('No Signer available for 0x1111111111111111111111111111111111111111') },
    });
  });

  it('behavior: block, transaction and receipt objects have the geth/anvil shape', async () => {
    const block = await rpcResult<Record<string, unknown>>(f.table, 'eth_getBlockByNumber', ['0x2', true]);
    expect(Object.keys(block).sort()).toEqual(
      [
        'baseFeePerGas', 'blobGasUsed', 'difficulty', 'excessBlobGas', 'extraData', 'gasLimit', 'gasUsed', 'hash', 'logsBloom', 'miner', 'mixHash', 'nonce',
        'number', 'parentBeaconBlockRoot', 'parentHash', 'receiptsRoot', 'requestsHash', 'sha3Uncles', 'size', 'stateRoot', 'timestamp', 'totalDifficulty',
        'transactions', 'transactionsRoot', 'uncles', 'withdrawals', 'withdrawalsRoot',
      ].sort(),
    );
    expect(block).toMatchObject({ gasLimit: '0x1c9c380', miner: '0x0000000000000000000000000000000000000000', difficulty: '0x0', withdrawals: [], uncles: [] });
    const tx = (block.transactions as Record<string, unknown>[])[0]!;
    expect(tx).toMatchObject({ type: '0x2', chainId: '0x7a69', nonce: '0x0', to: f.counter, from: f.accounts[1], input: '0xd09de08a', accessList: [], blockNumber: '0x2', transactionIndex: '0x0' });
    expect(tx.yParity).toBe(tx.v);
    const receipt = await rpcResult<Record<string, unknown>>(f.table, 'eth_getTransactionReceipt', [tx.hash]);
    expect(receipt).toMatchObject({ type: '0x2', status: '0x1', from: f.accounts[1], to: f.counter, contractAddress: null, blockHash: block.hash, transactionIndex: '0x0' });
    expect(receipt).not.toHaveProperty('blobGasUsed');
    expect(receipt.effectiveGasPrice).toBe(tx.gasPrice);
    expect((receipt.logs as unknown[]).length).toBe(1);
    expect(receipt.logsBloom).toBe(block.logsBloom);
    const deploy = await rpcResult<Record<string, unknown>>(f.table, 'eth_getBlockReceipts', ['0x1']);
    expect(deploy).toEqual([expect.objectContaining({ to: null, contractAddress: f.counter })]);
    expect(await rpcResult(f.table, 'eth_getTransactionByBlockNumberAndIndex', ['0x2', '0x0'])).toEqual(tx);
    expect(await rpcResult(f.table, 'eth_getTransactionByBlockHashAndIndex', [block.hash, '0x0'])).toEqual(tx);
  });

  it('behavior: legacy transactions carry an EIP-155 v and no yParity', async () => {
    const hash = await rpcResult<string>(f.table, 'eth_sendTransaction', [{ from: f.accounts[5], to: f.accounts[6], value: '0x1', gasPrice: '0x77359400' }]);
    const tx = await rpcResult<Record<string, unknown>>(f.table, 'eth_getTransactionByHash', [hash]);
    expect(tx).toMatchObject({ type: '0x0', chainId: '0x7a69', gasPrice: '0x77359400', gas: '0x5208' });
    expect(tx).not.toHaveProperty('yParity');
    expect(['0xf4f5', '0xf4f6']).toContain(tx.v);
    const access = await rpcResult<string>(f.table, 'eth_sendTransaction', [{ from: f.accounts[5], to: f.accounts[6], gasPrice: '0x77359400', accessList: [{ address: f.accounts[6], storageKeys: [] }] }]);
    expect(await rpcResult(f.table, 'eth_getTransactionByHash', [access])).toMatchObject({ type: '0x1', accessList: [{ address: f.accounts[6], storageKeys: [] }], yParity: expect.any(String) });
  });

  it('args: eth_feeHistory takes a hex or numeric count, a newest block and optional percentiles', async () => {
    const history = await rpcResult<Record<string, unknown>>(f.table, 'eth_feeHistory', [2, '0x3', [0, 50, 100]]);
    expect(history).toMatchObject({ oldestBlock: '0x2', gasUsedRatio: [expect.any(Number), expect.any(Number)] });
    expect(history.baseFeePerGas).toHaveLength(3);
    expect(history.reward).toEqual([expect.any(Array), expect.any(Array)]);
    expect(await rpcResult(f.table, 'eth_feeHistory', ['0x10', 'latest'])).toMatchObject({ oldestBlock: '0x0' });
    expect(await rpcResult(f.table, 'eth_feeHistory', ['0x10', 'latest'])).not.toHaveProperty('reward');
    expect(await rpcResult(f.table, 'eth_feeHistory', ['0x0', 'latest', []])).toMatchObject({ baseFeePerGas: [], gasUsedRatio: [] });
    expect(await rpc(f.table, 'eth_feeHistory', ['0x2', 'latest', [50, 10]])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('ascending') } });
    expect(await rpc(f.table, 'eth_feeHistory', ['0x2', 'latest', [101]])).toMatchObject({ error: { code: -32602 } });
    expect(await rpc(f.table, 'eth_feeHistory', ['0x2', '0x99'])).toMatchObject({ error: { code: -32602 } });
  });
});
