// Polled filters on the embedded chain through its method table: block, log and pending filters,
// removed logs after evm_revert, historic logs, per-key ownership and bounds, expiry, bad ids.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChainFilters } from './chainFilters.js';
import { createDevNamespace } from './devNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, callMethod, createMethodTable } from './methodTable.js';
import { COUNTER_ABI, type ChainRpcFixture, openChainRpcFixture } from './testing/chainRpc.js';
import { RpcError } from '../../rpc/errors.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call<T = unknown>(table: MethodTable, method: string, params: unknown[] = [], clientKey = 'key-a'): Promise<T> {
  return (await callMethod(table, method, JSON.parse(JSON.stringify(params)), { requestId: 't', signal: new AbortController().signal, clientKey })) as T;
}

async function callError(table: MethodTable, method: string, params: unknown[], clientKey = 'key-a'): Promise<{ code: number; message: string }> {
  try {
    await call(table, method, params, clientKey);
  } catch (error) {
    if (error instanceof RpcError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`${method} did not fail`);
}

describe('polled filters', () => {
  let fx: ChainRpcFixture;
  let table: MethodTable;
  let now: number;
  beforeEach(async () => {
    fx = await openChainRpcFixture();
    now = 1_000_000;
    const filters = createChainFilters(fx.temp.chain, { clock: () => now, maxPerKey: 50, maxTotal: 80 });
    table = createMethodTable(createEthNamespace({ chain: fx.temp.chain, filters }), createDevNamespace({ chain: fx.temp.chain }));
  });
  afterEach(() => fx.dispose());

  const increment = (from: string) => call<string>(table, 'eth_sendTransaction', [{ from, to: fx.counter, data: COUNTER_ABI.increment }]);

  it('behavior: a block filter answers each new block hash once', async () => {
    const id = await call<string>(table, 'eth_newBlockFilter');
    expect(id).toMatch(/^0x[0-9a-f]{32}$/);
    expect(await call(table, 'eth_getFilterChanges', [id])).toEqual([]);
    await call(table, 'evm_mine');
    await call(table, 'evm_mine');
    const hashes = await call<string[]>(table, 'eth_getFilterChanges', [id]);
    const blocks = await Promise.all([4, 5].map((n) => call<Obj>(table, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])));
    expect(hashes).toEqual(blocks.map((b) => b.hash));
    expect(await call(table, 'eth_getFilterChanges', [id])).toEqual([]);
  });

  it('behavior: a log filter answers matching logs, and removed: true for logs whose block evm_revert took away', async () => {
    const other = await call<string>(table, 'eth_newFilter', [{ address: '0x00000000000000000000000000000000000000aa' }]);
    const id = await call<string>(table, 'eth_newFilter', [{ address: fx.counter, topics: [COUNTER_ABI.incrementedTopic] }]);
    const snapshot = await call<string>(table, 'evm_snapshot');
    const hash = await increment(fx.accounts[3]!);
    const added = await call<Obj[]>(table, 'eth_getFilterChanges', [id]);
    expect(added.map((l) => [l.transactionHash, l.removed, l.address])).toEqual([[hash, false, fx.counter]]);
    expect(await call(table, 'eth_getFilterLogs', [id])).toHaveLength(1);
    expect(await call(table, 'evm_revert', [snapshot])).toBe(true);
    const removed = await call<Obj[]>(table, 'eth_getFilterChanges', [id]);
    expect(removed).toEqual([{ ...added[0], removed: true }]);
    expect(await call(table, 'eth_getFilterChanges', [other])).toEqual([]);
  });

  it('behavior: a log filter from a past block answers the earlier logs first, as anvil does', async () => {
    const id = await call<string>(table, 'eth_newFilter', [{ fromBlock: '0x1', address: fx.counter }]);
    expect((await call<Obj[]>(table, 'eth_getFilterChanges', [id])).map((l) => l.blockNumber)).toEqual(['0x2', '0x3']);
    expect(await call(table, 'eth_getFilterChanges', [id])).toEqual([]);
  });

  it('behavior: a log filter on a block hash answers that block\'s logs; an unknown hash is -32001', async () => {
    const block = await call<Obj>(table, 'eth_getBlockByNumber', ['0x2', false]);
    const id = await call<string>(table, 'eth_newFilter', [{ blockHash: block.hash }]);
    expect((await call<Obj[]>(table, 'eth_getFilterChanges', [id])).map((l) => l.blockHash)).toEqual([block.hash]);
    expect(await call<Obj[]>(table, 'eth_getFilterLogs', [id])).toHaveLength(1);
    expect((await callError(table, 'eth_newFilter', [{ blockHash: `0x${'00'.repeat(32)}` }])).code).toBe(-32001);
  });

  it('behavior: a pending-transaction filter answers submitted transaction hashes', async () => {
    const id = await call<string>(table, 'eth_newPendingTransactionFilter');
    const hash = await increment(fx.accounts[4]!);
    expect(await call(table, 'eth_getFilterChanges', [id])).toEqual([hash]);
  });

  it('error: unknown, uninstalled and other keys\' filter ids are "filter not found"; uninstall answers false for them', async () => {
    const id = await call<string>(table, 'eth_newBlockFilter');
    expect(await callError(table, 'eth_getFilterChanges', [id], 'key-b')).toEqual({ code: -32000, message: 'filter not found' });
    expect(await call(table, 'eth_uninstallFilter', [id], 'key-b')).toBe(false);
    expect(await call(table, 'eth_uninstallFilter', [id])).toBe(true);
    expect(await call(table, 'eth_uninstallFilter', [id])).toBe(false);
    expect(await callError(table, 'eth_getFilterChanges', [id])).toEqual({ code: -32000, message: 'filter not found' });
    expect(await callError(table, 'eth_getFilterLogs', ['0x1234'])).toEqual({ code: -32000, message: 'filter not found' });
    expect((await callError(table, 'eth_getFilterChanges', ['nope'])).code).toBe(-32602);
  });

  it('error: one key past its filter bound gets -32005 while other keys still install; the total is bounded too', async () => {
    for (let i = 0; i < 50; i++) await call(table, 'eth_newBlockFilter');
    const refused = await callError(table, 'eth_newBlockFilter', []);
    expect(refused.code).toBe(-32005);
    expect(refused.message).toContain('too many filters');
    for (let i = 0; i < 30; i++) await call(table, 'eth_newBlockFilter', [], 'key-b');
    expect((await callError(table, 'eth_newBlockFilter', [], 'key-c')).code).toBe(-32005);
  });

  it('behavior: a filter not polled for 5 minutes expires; a polled one stays', async () => {
    const idle = await call<string>(table, 'eth_newBlockFilter');
    const polled = await call<string>(table, 'eth_newBlockFilter');
    now += 4 * 60_000;
    await call(table, 'eth_getFilterChanges', [polled]);
    now += 2 * 60_000;
    expect(await call(table, 'eth_getFilterChanges', [polled])).toEqual([]);
    expect(await callError(table, 'eth_getFilterChanges', [idle])).toEqual({ code: -32000, message: 'filter not found' });
  });
});
