// Fork state reads against a real anvil: an account is one batch of three reads, reads are shared
// per block hash across readers (requests), a failed read rejects and is not kept, the block bound
// holds; and the fork state manager on top: checkpoints, cleared storage that stays cleared, copies.
import { Address, bigIntToBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamBadAnswerError } from '../../rpc/errors.js';
import type { Hex } from '../../rpc/hex.js';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { createPinnedCommon } from '../../engine/execute/gethConfig.js';
import { createJsonRpcClient, type JsonRpcClient } from '../upstream/jsonRpcClient.js';
import { createForkStateCache, type ForkUpstream } from './forkState.js';
import { ForkStateManager } from './forkStateManager.js';

const CONTRACT = '0x00000000000000000000000000000000000000c0';
const EMPTY = '0x00000000000000000000000000000000000000e0';
const slot = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);

let anvil: AnvilProcess;
let client: JsonRpcClient;
/** Hash of a block after which CONTRACT has code and slots 1 = 0x2a, 2 = 0x07. */
let blockHash: Hex;
let otherBlock: Hex;

/** An upstream over the real anvil that counts the calls it sends and can be told to fail them. */
function countingUpstream(withBatch = true) {
  const counts = { calls: 0, batches: 0 };
  let failing = false;
  const fail = () => new UpstreamBadAnswerError('test#0', 'told to fail');
  const upstream: ForkUpstream = {
    call: async (method, params) => {
      counts.calls++;
      if (failing) throw fail();
      return client.call(method, params);
    },
    batch: withBatch
      ? async (calls) => {
          counts.batches++;
          counts.calls += calls.length;
          if (failing) throw fail();
          return client.batch(calls.map((c) => ({ method: c.method, params: c.params })));
        }
      : undefined,
  };
  return { upstream, counts, setFailing: (v: boolean) => (failing = v) };
}

beforeAll(async () => {
  anvil = await startAnvil();
  client = createJsonRpcClient({ url: anvil.url, label: 'anvil', timeoutMs: 10_000 });
  await client.call('anvil_setCode', [CONTRACT, '0x60005460005260206000f3']);
  await client.call('anvil_setStorageAt', [CONTRACT, `0x${'0'.repeat(63)}1`, `0x${'0'.repeat(62)}2a`]);
  await client.call('anvil_setStorageAt', [CONTRACT, `0x${'0'.repeat(63)}2`, `0x${'0'.repeat(63)}7`]);
  await client.call('evm_mine', []);
  blockHash = ((await client.call('eth_getBlockByNumber', ['latest', false])) as { hash: Hex }).hash;
  await client.call('evm_mine', []);
  otherBlock = ((await client.call('eth_getBlockByNumber', ['latest', false])) as { hash: Hex }).hash;
}, 30_000);
afterAll(async () => {
  client?.close();
  await anvil?.stop();
});

describe('forkState', () => {
  it('default: an account is one batch of balance, nonce and code; an empty account is undefined; slots lose leading zeros', async () => {
    const { upstream, counts } = countingUpstream();
    const reader = createForkStateCache().reader(blockHash, upstream);
    const account = await reader.account(CONTRACT);
    expect(account).toMatchObject({ nonce: 0n, balance: 0n });
    expect(Buffer.from(account!.code).toString('hex')).toBe('60005460005260206000f3');
    expect(counts).toEqual({ calls: 3, batches: 1 });
    expect(await reader.account(EMPTY)).toBeUndefined();
    expect([...(await reader.storage(CONTRACT, `0x${'0'.repeat(63)}1`))]).toEqual([0x2a]);
    expect(await reader.storage(CONTRACT, `0x${'0'.repeat(63)}3`)).toEqual(new Uint8Array(0));
  });

  it('behavior: reads are shared per block hash across readers; another block reads again; the block bound evicts the oldest', async () => {
    const cache = createForkStateCache({ maxBlocks: 1 });
    const first = countingUpstream(false);
    await cache.reader(blockHash, first.upstream).storage(CONTRACT, `0x${'0'.repeat(63)}2`);
    const second = countingUpstream(false);
    expect([...(await cache.reader(blockHash, second.upstream).storage(CONTRACT, `0x${'0'.repeat(63)}2`))]).toEqual([7]);
    expect(second.counts.calls).toBe(0);
    await cache.reader(otherBlock, second.upstream).storage(CONTRACT, `0x${'0'.repeat(63)}2`);
    expect(second.counts.calls).toBe(1);
    expect(cache.stats()).toMatchObject({ blocks: 1, hits: 1, reads: 2 });
    await cache.reader(blockHash, second.upstream).storage(CONTRACT, `0x${'0'.repeat(63)}2`);
    expect(second.counts.calls).toBe(2);
  });

  it('behavior: the byte bound drops the least recently used block', async () => {
    const cache = createForkStateCache({ maxBytes: 500 });
    const { upstream } = countingUpstream();
    await cache.reader(blockHash, upstream).account(CONTRACT);
    await cache.reader(blockHash, upstream).storage(CONTRACT, `0x${'0'.repeat(63)}1`);
    expect(cache.stats()).toMatchObject({ blocks: 1, bytes: 411 });
    await cache.reader(otherBlock, upstream).account(CONTRACT);
    expect(cache.stats()).toMatchObject({ blocks: 1, bytes: 211 });
  });

  it('error: a failed read rejects and is not kept: the next request reads again', async () => {
    const cache = createForkStateCache();
    const flaky = countingUpstream();
    flaky.setFailing(true);
    await expect(cache.reader(blockHash, flaky.upstream).account(CONTRACT)).rejects.toThrow('told to fail');
    await expect(cache.reader(blockHash, flaky.upstream).storage(CONTRACT, `0x${'0'.repeat(63)}1`)).rejects.toThrow('told to fail');
    flaky.setFailing(false);
    expect((await cache.reader(blockHash, flaky.upstream).account(CONTRACT))?.code.length).toBe(11);
    expect([...(await cache.reader(blockHash, flaky.upstream).storage(CONTRACT, `0x${'0'.repeat(63)}1`))]).toEqual([0x2a]);
  });
});

describe('ForkStateManager', () => {
  const common = createPinnedCommon({ chainId: 31337n, hardfork: 'prague' as never });
  const address = new Address(hexToBytes(CONTRACT));

  it('default: misses read the block\'s state; writes and reverts work on top of it; accounts are copies', async () => {
    const sm = new ForkStateManager(createForkStateCache().reader(blockHash, countingUpstream().upstream), common);
    expect((await sm.getCode(address)).length).toBe(11);
    expect([...(await sm.getStorage(address, slot(1n)))]).toEqual([0x2a]);
    await sm.checkpoint();
    await sm.putStorage(address, slot(1n), new Uint8Array([1]));
    expect([...(await sm.getStorage(address, slot(1n)))]).toEqual([1]);
    await sm.revert();
    expect([...(await sm.getStorage(address, slot(1n)))]).toEqual([0x2a]);
    const a = (await sm.getAccount(address))!;
    a.balance = 5n;
    expect((await sm.getAccount(address))!.balance).toBe(0n);
  });

  it('behavior: cleared storage (and a deleted account\'s) reads as empty, not from the upstream, until reverted', async () => {
    const sm = new ForkStateManager(createForkStateCache().reader(blockHash, countingUpstream().upstream), common);
    await sm.checkpoint();
    await sm.clearStorage(address);
    expect(await sm.getStorage(address, slot(2n))).toEqual(new Uint8Array(0));
    await sm.revert();
    expect([...(await sm.getStorage(address, slot(2n)))]).toEqual([7]);
    await sm.checkpoint();
    await sm.deleteAccount(address);
    await sm.commit();
    expect(await sm.getAccount(address)).toBeUndefined();
    expect(await sm.getStorage(address, slot(1n))).toEqual(new Uint8Array(0));
  });

  it('error: a failed read rejects the state manager\'s read (never zero)', async () => {
    const flaky = countingUpstream();
    flaky.setFailing(true);
    const sm = new ForkStateManager(createForkStateCache().reader(blockHash, flaky.upstream), common);
    await expect(sm.getStorage(address, slot(1n))).rejects.toThrow('told to fail');
    await expect(sm.getAccount(address)).rejects.toThrow('told to fail');
  });
});
