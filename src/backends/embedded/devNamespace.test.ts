// evm_*/anvil_*/hardhat_* over the method table: anvil's answers (0x0, ids, booleans, null) and
// parameter forms (hex or number timestamps, `{timestamp, blocks}`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainRpcFixture, openChainRpcFixture, rpc, rpcResult } from './testing/chainRpc.js';

describe('dev namespace', () => {
  let f: ChainRpcFixture;
  beforeAll(async () => {
    f = await openChainRpcFixture();
  });
  afterAll(() => f.dispose());

  it('behavior: evm_snapshot ids count from 0x0, evm_revert answers true once then false', async () => {
    const id = await rpcResult<string>(f.table, 'evm_snapshot');
    expect(id).toMatch(/^0x[0-9a-f]+$/);
    expect(await rpcResult(f.table, 'evm_mine')).toBe('0x0');
    expect(await rpcResult(f.table, 'eth_blockNumber')).toBe('0x4');
    expect(await rpcResult(f.table, 'evm_revert', [id])).toBe(true);
    expect(await rpcResult(f.table, 'eth_blockNumber')).toBe('0x3');
    expect(await rpcResult(f.table, 'evm_revert', [id])).toBe(false);
  });

  it('args: evm_mine takes a timestamp as hex, number or {timestamp, blocks}; anvil_mine mines several', async () => {
    const start = await rpcResult<string>(f.table, 'evm_snapshot');
    await rpcResult(f.table, 'evm_mine', ['0x77359400']);
    expect(await rpcResult(f.table, 'eth_getBlockByNumber', ['latest', false])).toMatchObject({ timestamp: '0x77359400' });
    await rpcResult(f.table, 'evm_mine', [2_000_000_100]);
    expect(await rpcResult(f.table, 'eth_getBlockByNumber', ['latest', false])).toMatchObject({ timestamp: '0x77359464' });
    const before = Number(await rpcResult<string>(f.table, 'eth_blockNumber'));
    await rpcResult(f.table, 'evm_mine', [{ blocks: '0x3' }]);
    await rpcResult(f.table, 'anvil_mine', ['0x2', '0xa']);
    await rpcResult(f.table, 'hardhat_mine');
    expect(Number(await rpcResult<string>(f.table, 'eth_blockNumber'))).toBe(before + 6);
    expect(await rpc(f.table, 'evm_mine', ['0x1'])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('lower than the previous block') } });
    expect(await rpc(f.table, 'anvil_mine', ['0x100000'])).toMatchObject({ error: { code: -32602 } });
    const head = await rpcResult(f.table, 'eth_blockNumber');
    expect(await rpc(f.table, 'evm_mine', [{ blocks: '0x2711' }])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('at most 10000 blocks') } });
    expect(await rpcResult(f.table, 'eth_blockNumber')).toBe(head);
    await rpcResult(f.table, 'evm_revert', [start]);
  });

  it('behavior: setters answer like anvil and show in latest state at once', async () => {
    const target = f.accounts[8]!;
    expect(await rpcResult(f.table, 'anvil_setBalance', [target, '0x2a'])).toBeNull();
    expect(await rpcResult(f.table, 'hardhat_setNonce', [target, '0x9'])).toBeNull();
    expect(await rpcResult(f.table, 'anvil_setCode', [target, '0x6000'])).toBeNull();
    expect(await rpcResult(f.table, 'anvil_setStorageAt', [target, '0x1', '0x05'])).toBe(true);
    expect(await rpcResult(f.table, 'eth_getBalance', [target, 'latest'])).toBe('0x2a');
    expect(await rpcResult(f.table, 'eth_getTransactionCount', [target, 'latest'])).toBe('0x9');
    expect(await rpcResult(f.table, 'eth_getCode', [target, 'pending'])).toBe('0x6000');
    expect(await rpcResult(f.table, 'eth_getStorageAt', [target, '0x1', 'latest'])).toBe(`0x${'5'.padStart(64, '0')}`);
    expect(await rpcResult(f.table, 'eth_getBalance', [target, '0x1'])).toBe('0x21e19e0c9bab2400000');
    expect(await rpc(f.table, 'anvil_setBalance', [target, 'lots'])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('invalid argument 1 (balance)') } });
  });

  it('error: evm_setNextBlockTimestamp refuses a time before the head', async () => {
    expect(await rpc(f.table, 'evm_setNextBlockTimestamp', ['0x1'])).toMatchObject({ error: { code: -32602 } });
    expect(await rpcResult(f.table, 'evm_setNextBlockTimestamp', [4_000_000_000])).toBeNull();
    await rpcResult(f.table, 'evm_mine');
    expect(await rpcResult(f.table, 'eth_getBlockByNumber', ['latest', false])).toMatchObject({ timestamp: '0xee6b2800' });
  });
});
