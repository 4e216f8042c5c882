// anvil_dumpState / anvil_loadState: a round trip between two embedded chains, both directions with
// the real anvil 1.7.1, replays of transactions mined on a loaded state, and corrupt or hostile
// documents (bad gzip, a gzip bomb, bad JSON, bad fields, too many accounts) refused with -32602
// while the chain keeps answering.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { createTracer } from '../../engine/trace/createTracer.js';
import { type AnvilProcess, startAnvil } from '../../testing/startAnvil.js';
import { type TempChain, openTempChain } from '../../engine/chain/testing/tempChain.js';
import { createDebugNamespace } from './debugNamespace.js';
import { createDevNamespace } from './devNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, createMethodTable } from './methodTable.js';
import { COUNTER_ABI, type ChainRpcFixture, type RpcResponse, openChainRpcFixture, rpc, rpcResult } from './testing/chainRpc.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const THING: Hex = '0x00000000000000000000000000000000000000e1';
const WORD_7: Hex = '0x0000000000000000000000000000000000000000000000000000000000000007';

async function anvilRpc(url: string, method: string, params: unknown[] = []): Promise<RpcResponse> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  return body.error ? { error: body.error } : { result: body.result ?? null };
}

const hexOf = (bytes: Uint8Array | string) => `0x${Buffer.from(bytes).toString('hex')}`;

describe('anvil_dumpState / anvil_loadState', () => {
  let source: ChainRpcFixture;
  let target: TempChain;
  let table: MethodTable;
  let anvil: AnvilProcess;
  beforeAll(async () => {
    [source, target, anvil] = await Promise.all([openChainRpcFixture(), openTempChain({ clock: Date.now }), startAnvil()]);
    const { chain } = target;
    const tracer = createTracer({ chain, useMinedRecords: false });
    table = createMethodTable(createEthNamespace({ chain }), createDevNamespace({ chain }), createDebugNamespace({ tracer }));
  }, 30_000);
  afterAll(async () => {
    await source?.dispose();
    await target?.dispose();
    await anvil?.stop();
  });

  const reads = async (t: MethodTable, counter: string) => ({
    balance: await rpcResult(t, 'eth_getBalance', [THING, 'latest']),
    code: await rpcResult(t, 'eth_getCode', [THING, 'latest']),
    slot: await rpcResult(t, 'eth_getStorageAt', [THING, '0x5', 'latest']),
    nonce: await rpcResult(t, 'eth_getTransactionCount', [THING, 'latest']),
    counterCode: await rpcResult(t, 'eth_getCode', [counter, 'latest']),
    count: await rpcResult(t, 'eth_call', [{ to: counter, data: COUNTER_ABI.count }, 'latest']),
  });

  it('behavior: a dump loads into a fresh chain with the same accounts, code and storage, and transactions on it replay exactly', async () => {
    for (const [method, params] of [
      ['anvil_setBalance', [THING, '0x1234']],
      ['anvil_setCode', [THING, '0x60006000f3']],
      ['anvil_setStorageAt', [THING, '0x5', WORD_7]],
      ['anvil_setNonce', [THING, '0x9']],
    ] as const) {
      await rpcResult(source.table, method, [...params]);
    }
    const dumped = await rpcResult<Hex>(source.table, 'anvil_dumpState');
    expect(dumped.slice(0, 6)).toBe('0x1f8b');
    expect(await rpcResult(table, 'anvil_loadState', [dumped])).toBe(true);
    const expected = await reads(source.table, source.counter);
    expect(expected.count).toBe(`0x${'2'.padStart(64, '0')}`);
    expect(await reads(table, source.counter)).toEqual(expected);

    const hash = await rpcResult<Hex>(table, 'eth_sendTransaction', [{ from: source.accounts[5], to: source.counter, data: COUNTER_ABI.increment }]);
    const diff = await rpcResult<Obj>(table, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
    expect(diff.pre[source.counter].storage[`0x${'0'.repeat(64)}`]).toBe(`0x${'2'.padStart(64, '0')}`);
    expect(diff.post[source.counter].storage[`0x${'0'.repeat(64)}`]).toBe(`0x${'3'.padStart(64, '0')}`);
  });

  it('behavior: anvil\'s dump loads here, and this chain\'s dump loads into anvil, with the same values', async () => {
    await anvilRpc(anvil.url, 'anvil_setCode', [THING, '0x6001']);
    await anvilRpc(anvil.url, 'anvil_setStorageAt', [THING, '0x5', WORD_7]);
    await anvilRpc(anvil.url, 'anvil_setBalance', [THING, '0x77']);
    const fromAnvil = (await anvilRpc(anvil.url, 'anvil_dumpState')) as { result: Hex };
    expect(await rpcResult(table, 'anvil_loadState', [fromAnvil.result])).toBe(true);
    expect(await rpcResult(table, 'eth_getCode', [THING, 'latest'])).toBe('0x6001');
    expect(await rpcResult(table, 'eth_getBalance', [THING, 'latest'])).toBe('0x77');
    expect(await rpcResult(table, 'eth_getStorageAt', [THING, '0x5', 'latest'])).toBe(WORD_7);

    const ours = await rpcResult<Hex>(source.table, 'anvil_dumpState');
    expect(await anvilRpc(anvil.url, 'anvil_loadState', [ours])).toEqual({ result: true });
    for (const [method, params] of [
      ['eth_getCode', [source.counter, 'latest']],
      ['eth_getStorageAt', [source.counter, '0x0', 'latest']],
      ['eth_getTransactionCount', [THING, 'latest']],
      ['eth_getCode', [THING, 'latest']],
    ] as const) {
      expect(await anvilRpc(anvil.url, method, [...params])).toEqual(await rpc(source.table, method, [...params]));
    }
  });

  it('error: corrupt and hostile documents are refused with -32602 naming the problem, and the chain keeps answering', async () => {
    const many = { accounts: Object.fromEntries(Array.from({ length: 100_001 }, (_, i) => [`0x${i.toString(16).padStart(40, '0')}`, {}])) };
    const cases: [string, string][] = [
      [hexOf(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef])), 'corrupt gzip'],
      [hexOf(gzipSync(Buffer.alloc(80 * 1024 * 1024))), 'inflates past'],
      [hexOf('{"accounts": '), 'not valid JSON'],
      [hexOf(JSON.stringify({ accounts: { nope: {} } })), 'invalid state at accounts.nope'],
      [hexOf(JSON.stringify({ accounts: { [THING]: { nonce: -1 } } })), `invalid state at accounts.${THING}.nonce`],
      [hexOf(JSON.stringify({ accounts: { [THING]: { storage: { '0x1': '0xzz' } } } })), 'invalid state at accounts'],
      [hexOf(JSON.stringify({ blocks: [] })), 'invalid state at accounts'],
      [hexOf(gzipSync(JSON.stringify(many))), '100001 accounts'],
    ];
    const head = await rpcResult(table, 'eth_blockNumber');
    for (const [input, message] of cases) {
      const answer = await rpc(table, 'anvil_loadState', [input]);
      expect({ message, answer }).toMatchObject({ message, answer: { error: { code: -32602, message: expect.stringContaining(message) } } });
    }
    expect(await rpcResult(table, 'eth_blockNumber')).toBe(head);
    expect(await rpcResult(table, 'eth_getCode', [THING, 'latest'])).toBe('0x6001');
  });
});
