// Real clients, unchanged, against the gateway: viem's http transport, ethers 6 and the reference
// provider's SDK (alchemy-sdk, configured with a custom URL). They must read results, see our
// JSON-RPC errors as the right error classes, and honour Retry-After on 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, HttpRequestError, MethodNotFoundRpcError, InvalidParamsRpcError, RpcRequestError } from 'viem';
import { JsonRpcProvider, FetchRequest } from 'ethers';
import { Alchemy } from 'alchemy-sdk';
import { startTestGateway, type TestGateway } from './testing/startTestGateway.js';

let t: TestGateway;
let limited: TestGateway;
const ADDRESS = '0x00000000000000000000000000000000000000aa';

beforeAll(async () => {
  t = await startTestGateway();
  t.state.balances.set(ADDRESS, 12345n);
  limited = await startTestGateway({ tiers: { cuPerSecond: { free: 10 } } });
});
afterAll(async () => {
  await t.close();
  await limited.close();
});

describe('viem', () => {
  it('default: reads chain id, block number and balances', async () => {
    const client = createPublicClient({ transport: http(`${t.url}/v2/${t.keys.free}`) });
    expect(await client.getChainId()).toBe(31337);
    expect(await client.getBlockNumber()).toBe(0x18n);
    expect(await client.getBalance({ address: ADDRESS })).toBe(12345n);
  });

  it('default: batches through the http transport', async () => {
    const client = createPublicClient({ transport: http(`${t.url}/v2/${t.keys.free}`, { batch: true }) });
    const [chainId, block, balance] = await Promise.all([client.getChainId(), client.getBlockNumber(), client.getBalance({ address: ADDRESS })]);
    expect([chainId, block, balance]).toEqual([31337, 0x18n, 12345n]);
  });

  it('error: JSON-RPC errors keep their classes', async () => {
    const client = createPublicClient({ transport: http(`${t.url}/v2/${t.keys.free}`, { retryCount: 0 }) });
    await expect(client.request({ method: 'eth_nope' as 'eth_chainId' })).rejects.toBeInstanceOf(MethodNotFoundRpcError);
    await expect(client.request({ method: 'eth_getBalance', params: ['0x12' as `0x${string}`, 'latest'] })).rejects.toBeInstanceOf(InvalidParamsRpcError);
  });

  it('error: a free key denied trace_transaction sees the 403 and its message', async () => {
    const client = createPublicClient({ transport: http(`${t.url}/v2/${t.keys.free}`, { retryCount: 0 }) });
    const error = await client.request({ method: 'trace_transaction' as 'eth_chainId', params: ['0x' + '11'.repeat(32)] as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain('requires the payg tier');
    const payg = createPublicClient({ transport: http(`${t.url}/v2/${t.keys.payg}`) });
    expect(await payg.request({ method: 'trace_transaction' as 'eth_chainId', params: ['0x' + '11'.repeat(32)] as never })).toEqual([]);
  });

  it('error: a wrong key is an HTTP-level failure', async () => {
    const client = createPublicClient({ transport: http(`${t.url}/v2/WrongWrongWrong1`, { retryCount: 0 }) });
    const error = await client.getBlockNumber().catch((e: unknown) => e);
    const cause = (error as { walk(fn: (e: unknown) => boolean): unknown }).walk((e) => e instanceof RpcRequestError || e instanceof HttpRequestError);
    expect(cause).toMatchObject({ status: 401 });
  });

  it('behavior: waits out a 429 by Retry-After and succeeds', async () => {
    const client = createPublicClient({ transport: http(`${limited.url}/v2/${limited.keys.free}`, { retryCount: 2 }) });
    const started = Date.now();
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(0x18n);
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(0x18n);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});

describe('ethers 6', () => {
  it('default: reads through JsonRpcProvider', async () => {
    const provider = new JsonRpcProvider(new FetchRequest(`${t.url}/v2/${t.keys.free}`), undefined, { staticNetwork: true, batchMaxCount: 1 });
    expect(await provider.getBlockNumber()).toBe(0x18);
    expect(await provider.getBalance(ADDRESS)).toBe(12345n);
    provider.destroy();
  });
});

describe('alchemy-sdk', () => {
  it('default: core methods over a custom URL', async () => {
    const alchemy = new Alchemy({ url: `${t.url}/v2/${t.keys.payg}` });
    expect(await alchemy.core.getBlockNumber()).toBe(0x18);
    expect((await alchemy.core.getBalance(ADDRESS)).toString()).toBe('12345');
    expect(await alchemy.core.send('trace_transaction', ['0x' + '22'.repeat(32)])).toEqual([]);
  });

  it('error: JSON-RPC errors surface with their message', async () => {
    const alchemy = new Alchemy({ url: `${t.url}/v2/${t.keys.free}`, maxRetries: 0 });
    await expect(alchemy.core.send('trace_transaction', ['0x' + '22'.repeat(32)])).rejects.toThrow(/payg tier/);
    await expect(alchemy.core.send('eth_nope', [])).rejects.toThrow(/Unsupported method: eth_nope/);
  });
});
