// anvil's dev-node methods on the embedded chain, beside the real anvil 1.7.1 where answers must
// match: impersonated sending (anvil's hash, exact traces on replay in-process, in a trace worker
// and after a restart), time jumps, timestamp interval, automine off with txpool_* and
// anvil_dropTransaction, gas limit / base fee / coinbase of the next block, signing, access lists,
// raw encodings and node info.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Hex, keccak256, numberToHex, recoverMessageAddress, recoverTypedDataAddress, parseTransaction, toRlp, concatHex, fromRlp } from 'viem';
import { type DevChain, createDevChain } from '../../engine/chain/devChain.js';
import { makeTempDir } from '../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../engine/trace/createTracer.js';
import { type TracePool, createTracePool } from '../../engine/trace/tracePool.js';
import { type AnvilProcess, startAnvil } from '../../testing/startAnvil.js';
import { createDebugNamespace } from './debugNamespace.js';
import { createDevNamespace } from './devNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, createMethodTable } from './methodTable.js';
import { type RpcResponse, rpc, rpcResult } from './testing/chainRpc.js';
import { createTraceNamespace } from './traceNamespace.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEV0: Hex = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const WHALE: Hex = '0x1111111111111111111111111111111111111111';
/** sstore(0, timestamp); sstore(1, coinbase); sstore(2, basefee); log1(0, 0, caller) */
const STAMP: Hex = '0x4260005541600155486002553360006000a100';
const STAMP_AT: Hex = '0x00000000000000000000000000000000000000c1';
const TYPED = {
  types: { EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }], Mail: [{ name: 'contents', type: 'string' }, { name: 'to', type: 'address' }] },
  primaryType: 'Mail',
  domain: { name: 'Tracehook', chainId: 31337 },
  message: { contents: 'hello', to: WHALE },
} as const;

async function anvilRpc(url: string, method: string, params: unknown[] = []): Promise<RpcResponse> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  return body.error ? { error: body.error } : { result: body.result ?? null };
}

function tableFor(chain: DevChain, tracer: Tracer): MethodTable {
  return createMethodTable(createEthNamespace({ chain }), createDevNamespace({ chain }), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
}

describe('dev-node methods', () => {
  const dataDir = makeTempDir();
  let anvil: AnvilProcess;
  let chain: DevChain;
  let pool: TracePool;
  let table: MethodTable;
  let pooled: MethodTable;
  const openChain = () => createDevChain({ dataDir, clock: Date.now, minedRecordBytes: 0 });
  const call = <T = unknown>(method: string, params: unknown[] = []) => rpcResult<T>(table, method, params);
  const both = async (method: string, params: unknown[] = []) => [await rpc(table, method, params), await anvilRpc(anvil.url, method, params)];

  beforeAll(async () => {
    [anvil, chain] = await Promise.all([startAnvil(), openChain()]);
    pool = createTracePool({ size: 1, worker: { dataDir, chainId: chain.chainId, hardfork: chain.config.hardfork, gasCap: 50_000_000n } });
    table = tableFor(chain, createTracer({ chain, useMinedRecords: false }));
    pooled = tableFor(chain, createTracer({ chain, useMinedRecords: false, runJob: (job) => pool.run(job) }));
  }, 30_000);
  afterAll(async () => {
    await pool?.close();
    await chain?.close();
    await anvil?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The views of a mined tx that a replay produces, from `t`. */
  async function replayViews(t: MethodTable, hash: Hex): Promise<Obj> {
    const callTrace = await rpcResult<Obj>(t, 'debug_traceTransaction', [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
    const diff = await rpcResult<Obj>(t, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
    const parity = await rpcResult<Obj[]>(t, 'trace_transaction', [hash]);
    return { callTrace, diff, parity };
  }

  it('behavior: an impersonated address sends like anvil (same hash, zero signature) and its traces replay exactly, also in a worker and after a restart', async () => {
    const request = { from: WHALE, to: DEV0, value: '0x1234', gas: '0x5208', nonce: '0x0', maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x3b9aca00' };
    for (const [method, params] of [
      ['anvil_impersonateAccount', [WHALE]],
      ['anvil_setBalance', [WHALE, '0xde0b6b3a7640000']],
    ] as const) {
      const [ours, theirs] = await both(method, [...params]);
      expect(ours).toEqual(theirs);
    }
    const [accounts, anvilAccounts] = await both('eth_accounts');
    expect(accounts).toEqual(anvilAccounts);
    const [ours, theirs] = await both('eth_sendTransaction', [request]);
    expect(ours).toEqual(theirs);
    const hash = (ours as { result: Hex }).result;
    const tx = await call<Obj>('eth_getTransactionByHash', [hash]);
    const anvilTx = ((await anvilRpc(anvil.url, 'eth_getTransactionByHash', [hash])) as { result: Obj }).result;
    const fields = ['type', 'chainId', 'nonce', 'gas', 'maxFeePerGas', 'maxPriorityFeePerGas', 'to', 'value', 'input', 'r', 's', 'v', 'yParity', 'hash', 'from'];
    const pick = (o: Obj) => Object.fromEntries(fields.map((f) => [f, o[f]]));
    expect(pick(tx)).toEqual(pick(anvilTx));
    expect({ from: tx.from, r: tx.r, s: tx.s }).toEqual({ from: WHALE, r: '0x0', s: '0x0' });
    const raw = await call<Hex>('debug_getRawTransaction', [hash]);
    expect(raw).toBe((await anvilRpc(anvil.url, 'debug_getRawTransaction', [hash]) as { result: Hex }).result);
    expect(keccak256(concatHex([toRlp(raw), WHALE]))).toBe(hash);

    // A contract call from the impersonated address, traced by replay.
    await call('anvil_setCode', [STAMP_AT, STAMP]);
    const stampHash = await call<Hex>('eth_sendTransaction', [{ from: WHALE, to: STAMP_AT, gas: '0x30d40' }]);
    const views = await replayViews(table, stampHash);
    expect(views.callTrace.from).toBe(WHALE);
    expect(views.callTrace.logs[0].topics[0]).toBe(`0x${WHALE.slice(2).padStart(64, '0')}`);
    expect(views.parity[0].action.from).toBe(WHALE);
    expect(views.diff.pre[WHALE].nonce).toBe(1);
    expect(await replayViews(pooled, stampHash)).toEqual(views);
    await chain.close();
    chain = await openChain();
    table = tableFor(chain, createTracer({ chain, useMinedRecords: false }));
    pooled = tableFor(chain, createTracer({ chain, useMinedRecords: false, runJob: (job) => pool.run(job) }));
    expect(await replayViews(table, stampHash)).toEqual(views);
    expect(await replayViews(pooled, stampHash)).toEqual(views);
    expect((await call<Obj>('eth_getTransactionByHash', [hash])).from).toBe(WHALE);
  });

  it('error: stopped impersonation and signing for an impersonated address are refused clearly', async () => {
    await call('anvil_impersonateAccount', [WHALE]);
    expect(await rpc(table, 'eth_signTransaction', [{ from: WHALE, to: DEV0 }])).toEqual({ error: { code: -32602, message: 'No Signer available' } });
    expect(await rpc(table, 'eth_sign', [WHALE, '0x68656c6c6f'])).toEqual({ error: { code: -32602, message: 'No Signer available' } });
    await call('anvil_stopImpersonatingAccount', [WHALE]);
    const refused = await rpc(table, 'eth_sendTransaction', [{ from: WHALE, to: DEV0 }]);
    expect(refused).toMatchObject({ error: { code: -32602, message: expect.stringContaining('No Signer available for 0x1111111111111111111111111111111111111111') } });
    await call('anvil_autoImpersonateAccount', [true]);
    await call('anvil_setBalance', ['0x2222222222222222222222222222222222222222', '0xde0b6b3a7640000']);
    expect(await call<Hex>('eth_sendTransaction', [{ from: '0x2222222222222222222222222222222222222222', to: DEV0, value: '0x0' }])).toMatch(/^0x[0-9a-f]{64}$/);
    await call('anvil_autoImpersonateAccount', [false]);
  });

  it('behavior: an impersonated contract sends like on anvil (EIP-3607 skipped): same hash, state and callTracer, replayed exactly in a worker and after a restart', async () => {
    const vault: Hex = '0x00000000000000000000000000000000000000f5';
    // sstore(0, add(sload(0), 1)); stop: runs when the vault calls itself.
    const code: Hex = '0x60005460010160005500';
    const setup: [string, unknown[]][] = [
      ['anvil_setCode', [vault, code]],
      ['anvil_setBalance', [vault, '0xde0b6b3a7640000']],
      ['anvil_impersonateAccount', [vault]],
    ];
    for (const [method, params] of setup) {
      const [ours, theirs] = await both(method, params);
      expect({ method, ours }).toEqual({ method, ours: theirs });
    }
    const fees = { maxFeePerGas: '0x77359400', maxPriorityFeePerGas: '0x3b9aca00', nonce: '0x0' };
    const [toEoa, anvilToEoa] = await both('eth_sendTransaction', [{ from: vault, to: DEV0, value: '0x10', gas: '0x5208', ...fees }]);
    expect(toEoa).toEqual(anvilToEoa);
    const [toSelf, anvilToSelf] = await both('eth_sendTransaction', [{ from: vault, to: vault, gas: '0x186a0', ...fees, nonce: '0x1' }]);
    expect(toSelf).toEqual(anvilToSelf);
    // anvil answers before its automined block is in (ours after): its state is compared once it is.
    await vi.waitFor(async () => expect(((await anvilRpc(anvil.url, 'eth_getTransactionReceipt', [(anvilToSelf as { result: Hex }).result])) as { result: unknown }).result).not.toBeNull(), { timeout: 10_000, interval: 10 });
    for (const [method, params] of [
      ['eth_getTransactionCount', [vault, 'latest']],
      ['eth_getCode', [vault, 'latest']],
      ['eth_getStorageAt', [vault, '0x0', 'latest']],
    ] as [string, unknown[]][]) {
      const [a, b] = await both(method, params);
      expect({ method, a }).toEqual({ method, a: b });
    }
    const selfHash = (toSelf as { result: Hex }).result;
    // Balances differ with the chains' base fees; what each transaction used and did must not.
    for (const hash of [(toEoa as { result: Hex }).result, selfHash]) {
      const [receipt, anvilReceipt] = (await both('eth_getTransactionReceipt', [hash])) as { result: Obj }[];
      const pick = (r: Obj) => ({ status: r.status, gasUsed: r.gasUsed, from: r.from, to: r.to });
      expect(pick(receipt!.result)).toEqual(pick(anvilReceipt!.result));
    }
    const [callTrace, anvilCallTrace] = await both('debug_traceTransaction', [selfHash, { tracer: 'callTracer' }]);
    // The root frame's `gas` is geth's (the transaction's gas limit), a convention README lists.
    const withoutGas = (r: RpcResponse) => ({ ...(r as { result: Obj }).result, gas: undefined });
    expect(withoutGas(callTrace!)).toEqual(withoutGas(anvilCallTrace!));
    const views = await replayViews(table, selfHash);
    expect(views.diff.post[vault].nonce).toBe(2);
    expect(await replayViews(pooled, selfHash)).toEqual(views);
    await chain.close();
    chain = await openChain();
    table = tableFor(chain, createTracer({ chain, useMinedRecords: false }));
    pooled = tableFor(chain, createTracer({ chain, useMinedRecords: false, runJob: (job) => pool.run(job) }));
    expect(await replayViews(table, selfHash)).toEqual(views);
    expect(await replayViews(pooled, selfHash)).toEqual(views);
  });

  it('behavior: evm_increaseTime, the timestamp interval, base fee, gas limit and coinbase shape the next blocks, and traces of their transactions replay what was mined', async () => {
    const head = await call<Obj>('eth_getBlockByNumber', ['latest', false]);
    expect(await call('evm_increaseTime', [3600])).toBeGreaterThanOrEqual(3600);
    const coinbase: Hex = '0x3333333333333333333333333333333333333333';
    expect(await call('anvil_setCoinbase', [coinbase])).toBeNull();
    expect(await call('anvil_setNextBlockBaseFeePerGas', ['0x12345'])).toBeNull();
    expect(await call('evm_setBlockGasLimit', ['0x1c9c381'])).toBe(true);
    expect(await call('eth_coinbase')).toBe(coinbase);
    // Explicit gas: an estimate runs in the head block's context, where the stamped values differ.
    const hash = await call<Hex>('eth_sendTransaction', [{ from: DEV0, to: STAMP_AT, gas: '0x30d40' }]);
    const receipt = await call<Obj>('eth_getTransactionReceipt', [hash]);
    expect(receipt.status).toBe('0x1');
    const block = await call<Obj>('eth_getBlockByNumber', [receipt.blockNumber, false]);
    expect(BigInt(block.timestamp) - BigInt(head.timestamp)).toBeGreaterThanOrEqual(3600n);
    expect({ miner: block.miner, baseFee: block.baseFeePerGas, gasLimit: block.gasLimit }).toEqual({ miner: coinbase, baseFee: '0x12345', gasLimit: '0x1c9c381' });
    const views = await replayViews(table, hash);
    const stored = views.diff.post[STAMP_AT].storage;
    expect(stored['0x0000000000000000000000000000000000000000000000000000000000000000']).toBe(`0x${BigInt(block.timestamp).toString(16).padStart(64, '0')}`);
    expect(stored['0x0000000000000000000000000000000000000000000000000000000000000001']).toBe(`0x${coinbase.slice(2).padStart(64, '0')}`);
    expect(stored['0x0000000000000000000000000000000000000000000000000000000000000002']).toBe(`0x${'12345'.padStart(64, '0')}`);
    expect(await replayViews(pooled, hash)).toEqual(views);

    await call('anvil_setBlockTimestampInterval', [100]);
    await call('evm_mine');
    await call('evm_mine');
    const [a, b] = await Promise.all(['latest', 'latest'].map(async () => call<Obj>('eth_getBlockByNumber', ['latest', false])));
    const previous = await call<Obj>('eth_getBlockByNumber', [numberToHex(BigInt(a!.number) - 1n), false]);
    expect(BigInt(b!.timestamp) - BigInt(previous.timestamp)).toBe(100n);
    expect(await call('anvil_removeBlockTimestampInterval')).toBe(true);
  });

  it('behavior: evm_setBlockGasLimit answers like anvil 1.7.1 for any u64 (0 and 1 included): the next blocks carry it, a transaction over it is refused, above u64 is invalid params', async () => {
    const send = [{ from: DEV0, to: WHALE, value: '0x1', gas: '0x5208' }];
    for (const limit of ['0x0', '0x1', '0x5207']) {
      const [ours, theirs] = await both('evm_setBlockGasLimit', [limit]);
      expect(ours).toEqual(theirs);
      expect(ours).toEqual({ result: true });
      const [minedOurs, minedTheirs] = await both('evm_mine');
      expect('error' in minedOurs!).toBe(false);
      expect('error' in minedTheirs!).toBe(false);
      const [blockOurs, blockTheirs] = await both('eth_getBlockByNumber', ['latest', false]);
      expect((blockOurs as { result: Obj }).result.gasLimit).toBe(limit);
      expect((blockTheirs as { result: Obj }).result.gasLimit).toBe(limit);
      // 21000 gas never fits these limits: both refuse the transaction with -32000.
      const [sentOurs, sentTheirs] = await both('eth_sendTransaction', send);
      expect((sentTheirs as { error: { code: number } }).error.code).toBe(-32000);
      expect((sentOurs as { error: { code: number; message: string } }).error.code).toBe(-32000);
    }
    // anvil panics above u64 (its process aborts); ours refuses the parameter.
    const over = await rpc(table, 'evm_setBlockGasLimit', ['0x10000000000000000']);
    expect((over as { error: { code: number } }).error.code).toBe(-32602);
    for (const url of [undefined, anvil.url]) {
      const restore = url ? await anvilRpc(url, 'evm_setBlockGasLimit', ['0x1c9c380']) : await rpc(table, 'evm_setBlockGasLimit', ['0x1c9c380']);
      expect(restore).toEqual({ result: true });
    }
    const [okOurs, okTheirs] = await both('eth_sendTransaction', send);
    expect('result' in okOurs! && 'result' in okTheirs!).toBe(true);
  });

  it('behavior: evm_setIntervalMining mines on an interval with automine off, 0 stops it', async () => {
    const start = BigInt(await call<Hex>('eth_blockNumber'));
    await call('evm_setIntervalMining', [1]);
    expect(await call('anvil_getAutomine')).toBe(false);
    await new Promise((r) => setTimeout(r, 2300));
    await call('evm_setIntervalMining', [0]);
    const mined = BigInt(await call<Hex>('eth_blockNumber')) - start;
    expect(mined).toBeGreaterThanOrEqual(1n);
    expect(mined).toBeLessThanOrEqual(3n);
    await new Promise((r) => setTimeout(r, 1200));
    expect(BigInt(await call<Hex>('eth_blockNumber')) - start).toBe(mined);
    await call('evm_setAutomine', [true]);
  });

  it('behavior: with automine off transactions wait in the pool (txpool_*), anvil_dropTransaction removes one, evm_mine mines the rest', async () => {
    expect(await call('anvil_getAutomine')).toBe(true);
    await call('evm_setAutomine', [false]);
    expect(await call('anvil_getAutomine')).toBe(false);
    const keep = await call<Hex>('eth_sendTransaction', [{ from: DEV0, to: WHALE, value: '0x5' }]);
    const drop = await call<Hex>('eth_sendTransaction', [{ from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', to: WHALE, value: '0x6' }]);
    expect(await call('txpool_status')).toEqual({ pending: '0x2', queued: '0x0' });
    const content = await call<Obj>('txpool_content');
    const nonce = String(Number((await call<Obj>('eth_getTransactionByHash', [keep])).nonce));
    expect(content.pending[DEV0][nonce].hash).toBe(keep);
    const inspect = await call<Obj>('txpool_inspect');
    expect(inspect.pending[DEV0][nonce]).toMatch(/^0x1111111111111111111111111111111111111111: 5 wei \+ 21000 gas × \d+ wei$/);
    expect(await call('anvil_dropTransaction', [drop])).toBeNull();
    expect(await call('txpool_status')).toEqual({ pending: '0x1', queued: '0x0' });
    expect(await call('eth_getTransactionReceipt', [keep])).toBeNull();
    await call('evm_mine');
    expect((await call<Obj>('eth_getTransactionReceipt', [keep])).status).toBe('0x1');
    expect(await call('eth_getTransactionByHash', [drop])).toBeNull();
    const waiting = await call<Hex>('eth_sendTransaction', [{ from: DEV0, to: WHALE, value: '0x8' }]);
    await call('evm_setAutomine', [true]);
    expect((await call<Obj>('eth_getTransactionReceipt', [waiting])).status).toBe('0x1');
    const next = await call<Hex>('eth_sendTransaction', [{ from: DEV0, to: WHALE, value: '0x9' }]);
    expect((await call<Obj>('eth_getTransactionReceipt', [next])).status).toBe('0x1');
  });

  it('behavior: eth_sign, personal_sign and eth_signTypedData_v4 give anvil\'s signatures, which recover to the signer', async () => {
    for (const [method, params] of [
      ['eth_sign', [DEV0, '0x68656c6c6f']],
      ['personal_sign', ['0x68656c6c6f', DEV0]],
      ['eth_signTypedData_v4', [DEV0, TYPED]],
      ['eth_signTypedData_v4', [DEV0, JSON.stringify(TYPED)]],
      ['eth_signTypedData_v4', [DEV0, { ...TYPED, primaryType: 'Nope' }]],
    ] as const) {
      const [ours, theirs] = await both(method, [...params]);
      if ('error' in theirs!) expect(ours).toMatchObject({ error: { code: theirs.error.code } });
      else expect({ method, ...ours }).toEqual({ method, ...theirs });
    }
    const signature = await call<Hex>('personal_sign', ['0x68656c6c6f', DEV0]);
    expect((await recoverMessageAddress({ message: 'hello', signature })).toLowerCase()).toBe(DEV0);
    const typed = await call<Hex>('eth_signTypedData_v4', [DEV0, TYPED]);
    expect((await recoverTypedDataAddress({ ...TYPED, signature: typed } as unknown as Parameters<typeof recoverTypedDataAddress>[0])).toLowerCase()).toBe(DEV0);
    const raw = await call<Hex>('eth_signTransaction', [{ from: DEV0, to: WHALE, value: '0x7' }]);
    const parsed = parseTransaction(raw);
    expect({ to: parsed.to, value: parsed.value, chainId: parsed.chainId }).toEqual({ to: WHALE, value: 7n, chainId: 31337 });
  });

  it('behavior: eth_createAccessList and eth_blobBaseFee answer what anvil answers', async () => {
    const reader: Hex = '0x00000000000000000000000000000000000000d1';
    const store: Hex = '0x00000000000000000000000000000000000000d2';
    // reader: staticcall(gas, store, 0, 0, 0, 0); store: sload(5)
    const code: [Hex, Hex][] = [
      [reader, `0x600060006000600073${store.slice(2)}5afa00`],
      [store, '0x60055400'],
    ];
    for (const [address, bytecode] of code) {
      await call('anvil_setCode', [address, bytecode]);
      await anvilRpc(anvil.url, 'anvil_setCode', [address, bytecode]);
    }
    const [ours, theirs] = await both('eth_createAccessList', [{ from: DEV0, to: reader }]);
    expect(ours).toEqual(theirs);
    const [fee, anvilFee] = await both('eth_blobBaseFee');
    expect(fee).toEqual(anvilFee);
  });

  it('behavior: debug_getRaw* encode the header, block, receipts and transactions (hashes and fields check out)', async () => {
    const hash = await call<Hex>('eth_sendTransaction', [{ from: DEV0, to: STAMP_AT }]);
    const receipt = await call<Obj>('eth_getTransactionReceipt', [hash]);
    const block = await call<Obj>('eth_getBlockByNumber', [receipt.blockNumber, false]);
    expect(keccak256(await call<Hex>('debug_getRawHeader', [receipt.blockNumber]))).toBe(block.hash);
    const rawBlock = fromRlp(await call<Hex>('debug_getRawBlock', [block.hash]));
    expect(keccak256(toRlp(rawBlock[0] as Hex[]))).toBe(block.hash);
    expect(keccak256(await call<Hex>('debug_getRawTransaction', [hash]))).toBe(hash);
    const [rawReceipt] = await call<Hex[]>('debug_getRawReceipts', [receipt.blockNumber]);
    const fields = fromRlp(`0x${rawReceipt!.slice(4)}`) as Hex[];
    expect({ type: rawReceipt!.slice(0, 4), status: fields[0], cumulative: fields[1], bloom: fields[2] }).toEqual({ type: '0x02', status: '0x01', cumulative: receipt.cumulativeGasUsed, bloom: receipt.logsBloom });
    expect(await call('debug_getRawTransaction', [`0x${'ab'.repeat(32)}`])).toBeNull();
  });

  it('behavior: anvil_nodeInfo and anvil_metadata have anvil\'s shapes', async () => {
    const [info, anvilInfo] = await both('anvil_nodeInfo');
    const shape = (v: unknown): unknown => (v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)])) : typeof v);
    expect(shape((info as Obj).result)).toEqual(shape((anvilInfo as Obj).result));
    const [snapshot] = await both('evm_snapshot');
    const [meta, anvilMeta] = await both('anvil_metadata');
    const head = await call<Obj>('eth_getBlockByNumber', ['latest', false]);
    expect((meta as Obj).result.snapshots).toEqual({ [(snapshot as Obj).result]: [Number(head.number), head.hash] });
    const { clientVersion, ...rest } = (meta as Obj).result;
    const { clientVersion: _v, clientSemver: _s, clientCommitSha: _c, ...anvilRest } = (anvilMeta as Obj).result;
    expect(typeof clientVersion).toBe('string');
    expect(shape(rest)).toEqual(shape(anvilRest));
  });
});
