// Traces of transactions mined after dev setters (anvil_setBalance / setNonce / setCode /
// setStorageAt) replay from the state the miner built the block on, not from the parent's
// post-state: prestateTracer (both modes), the struct logger, trace_replayTransaction (trace,
// stateDiff, vmTrace), callTracer without the miner's kept records, block traces and
// debug_traceCall with txIndex agree with what the transaction did, in-process, through the trace
// worker pool, after a restart from the same data dir, and (prestateTracer) with anvil.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Hex, numberToHex, pad } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type DevChain, createDevChain } from '../../engine/chain/devChain.js';
import { makeTempDir } from '../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../engine/trace/createTracer.js';
import { type TracePool, createTracePool } from '../../engine/trace/tracePool.js';
import { type AnvilProcess, startAnvil } from '../../testing/startAnvil.js';
import { createDebugNamespace } from './debugNamespace.js';
import { createDevNamespace } from './devNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, createMethodTable } from './methodTable.js';
import { type RpcResponse, rpcResult } from './testing/chainRpc.js';
import { createTraceNamespace } from './traceNamespace.js';

const CHAIN_ID = 31337;
const FEES = { maxFeePerGas: 3_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
/** Not a dev account: without anvil_setBalance it has nothing to pay with. */
const SENDER: PrivateKeyAccount = privateKeyToAccount(`0x${'5a'.repeat(32)}`);
const TARGET: Hex = '0x00000000000000000000000000000000000000c0';
/**
 * old = sload(0); mstore(0, old); sstore(0, old + 1); log1(0, 32, callvalue); stop.
 * PUSH1 0 SLOAD DUP1 PUSH1 0 MSTORE PUSH1 1 ADD PUSH1 0 SSTORE CALLVALUE PUSH1 32 PUSH1 0 LOG1 STOP
 */
const CODE: Hex = '0x600054806000526001016000553460206000a100';
const SLOAD_PC = 2;
const SLOT: Hex = pad('0x0');
const word = (n: bigint): Hex => pad(numberToHex(n));
const SENDER_BALANCE = 10n ** 18n;
const SENDER_NONCE = 5n;
const VALUE = 1000n;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What a mined transaction did, read from its receipt and the chain's state. */
interface Mined {
  hash: Hex;
  blockNumber: Hex;
  receipt: Obj;
  slotBefore: bigint;
  balanceBefore: bigint;
  nonceBefore: bigint;
}

/** The dev setters both chains get, then the transactions; `slotBefore` is what the setter stored. */
const SETUP: [string, unknown[]][] = [
  ['anvil_setBalance', [SENDER.address, numberToHex(SENDER_BALANCE)]],
  ['anvil_setNonce', [SENDER.address, numberToHex(SENDER_NONCE)]],
  ['anvil_setCode', [TARGET, CODE]],
  ['anvil_setStorageAt', [TARGET, '0x0', word(0x2an)]],
];
const SECOND_SETUP: [string, unknown[]][] = [['hardhat_setStorageAt', [TARGET, '0x0', word(0x100n)]]];
const anvilName = (method: string) => method.replace(/^hardhat_/, 'anvil_');

function signedTransactions(): Promise<Hex[]> {
  const tx = (nonce: bigint) => SENDER.signTransaction({ type: 'eip1559', chainId: CHAIN_ID, nonce: Number(nonce), to: TARGET, value: VALUE, gas: 100_000n, ...FEES });
  return Promise.all([tx(SENDER_NONCE), tx(SENDER_NONCE + 1n)]);
}

async function anvilRpc(url: string, method: string, params: unknown[]): Promise<RpcResponse> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  return body.error ? { error: body.error } : { result: body.result ?? null };
}

function tableFor(chain: DevChain, tracer: Tracer): MethodTable {
  return createMethodTable(createEthNamespace({ chain }), createDevNamespace({ chain }), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
}

/** Every replayed view of `tx` must agree with what it did (receipt, logs, state before and after). */
async function checkTraces(table: MethodTable, tx: Mined, label: string): Promise<void> {
  const sender = SENDER.address.toLowerCase();
  const slotAfter = tx.slotBefore + 1n;
  const gasUsed = BigInt(tx.receipt.gasUsed);
  const fee = gasUsed * BigInt(tx.receipt.effectiveGasPrice);
  const balanceAfter = tx.balanceBefore - VALUE - fee;
  const log = tx.receipt.logs[0];
  expect({ label, status: tx.receipt.status, data: log.data, topics: log.topics }).toEqual({ label, status: '0x1', data: word(tx.slotBefore), topics: [word(VALUE)] });

  const prestate = await rpcResult<Obj>(table, 'debug_traceTransaction', [tx.hash, { tracer: 'prestateTracer' }]);
  expect({ label, sender: { balance: prestate[sender]?.balance, nonce: prestate[sender]?.nonce }, target: { code: prestate[TARGET]?.code, storage: prestate[TARGET]?.storage } }).toEqual({
    label,
    sender: { balance: numberToHex(tx.balanceBefore), nonce: Number(tx.nonceBefore) },
    target: { code: CODE, storage: { [SLOT]: word(tx.slotBefore) } },
  });

  const diff = await rpcResult<{ pre: Obj; post: Obj }>(table, 'debug_traceTransaction', [tx.hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
  expect({
    label,
    pre: { balance: diff.pre[sender]?.balance, nonce: diff.pre[sender]?.nonce, slot: diff.pre[TARGET]?.storage?.[SLOT] },
    post: { balance: diff.post[sender]?.balance, nonce: diff.post[sender]?.nonce, slot: diff.post[TARGET]?.storage?.[SLOT] },
  }).toEqual({
    label,
    pre: { balance: numberToHex(tx.balanceBefore), nonce: Number(tx.nonceBefore), slot: word(tx.slotBefore) },
    post: { balance: numberToHex(balanceAfter), nonce: Number(tx.nonceBefore + 1n), slot: word(slotAfter) },
  });

  const structLog = await rpcResult<Obj>(table, 'debug_traceTransaction', [tx.hash, {}]);
  const storageAt = (op: string) => (structLog.structLogs as Obj[]).find((s) => s.op === op)?.storage;
  const bare = (n: bigint) => word(n).slice(2);
  expect({ label, gas: structLog.gas, failed: structLog.failed, sload: storageAt('SLOAD'), sstore: storageAt('SSTORE') }).toEqual({
    label,
    gas: Number(gasUsed),
    failed: false,
    sload: { [bare(0n)]: bare(tx.slotBefore) },
    sstore: { [bare(0n)]: bare(slotAfter) },
  });

  const replay = await rpcResult<Obj>(table, 'trace_replayTransaction', [tx.hash, ['trace', 'stateDiff', 'vmTrace']]);
  const ops = replay.vmTrace.ops as Obj[];
  expect({
    label,
    slot: replay.stateDiff[TARGET]?.storage?.[SLOT],
    nonce: replay.stateDiff[sender]?.nonce,
    balance: replay.stateDiff[sender]?.balance,
    sloadPush: ops.find((op) => op.pc === SLOAD_PC)?.ex.push,
    store: ops.find((op) => op.ex?.store)?.ex.store,
    error: replay.trace[0].error,
  }).toEqual({
    label,
    slot: { '*': { from: word(tx.slotBefore), to: word(slotAfter) } },
    nonce: { '*': { from: numberToHex(tx.nonceBefore), to: numberToHex(tx.nonceBefore + 1n) } },
    balance: { '*': { from: numberToHex(tx.balanceBefore), to: numberToHex(balanceAfter) } },
    sloadPush: [numberToHex(tx.slotBefore)],
    store: { key: '0x0', val: numberToHex(slotAfter) },
    error: undefined,
  });

  const call = await rpcResult<Obj>(table, 'debug_traceTransaction', [tx.hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }]);
  expect({ label, gasUsed: call.gasUsed, error: call.error, logs: (call.logs as Obj[]).map((l) => [l.data, l.topics]) }).toEqual({
    label,
    gasUsed: numberToHex(gasUsed),
    error: undefined,
    logs: [[word(tx.slotBefore), [word(VALUE)]]],
  });

  const blockTraces = await rpcResult<Obj[]>(table, 'debug_traceBlockByNumber', [tx.blockNumber, { tracer: 'prestateTracer' }]);
  expect({ label, block: blockTraces.map((t) => t.result) }).toEqual({ label, block: [prestate] });

  // The state before the block's first transaction is the one the setters left.
  const before = await rpcResult<Obj>(table, 'debug_traceCall', [{ from: sender, to: TARGET }, tx.blockNumber, { tracer: 'prestateTracer', txIndex: 0 }]);
  expect({ label, slot: before[TARGET]?.storage?.[SLOT], nonce: before[sender]?.nonce }).toEqual({ label, slot: word(tx.slotBefore), nonce: Number(tx.nonceBefore) });
}

describe('traces of transactions mined after dev setters', () => {
  const dataDir = makeTempDir();
  let chain: DevChain;
  let pool: TracePool;
  const tracers: Tracer[] = [];
  let local: MethodTable;
  let pooled: MethodTable;
  const mined: Mined[] = [];
  let raws: Hex[];

  /** In-process and pooled tables over `chain`, replaying every trace (no kept records). */
  function attach(): void {
    const localTracer = createTracer({ chain, useMinedRecords: false });
    const pooledTracer = createTracer({ chain, useMinedRecords: false, runJob: (job) => pool.run(job) });
    tracers.push(localTracer, pooledTracer);
    local = tableFor(chain, localTracer);
    pooled = tableFor(chain, pooledTracer);
  }

  const openChain = () => createDevChain({ dataDir, clock: Date.now, minedRecordBytes: 0 });

  beforeAll(async () => {
    chain = await openChain();
    pool = createTracePool({ size: 1, worker: { dataDir, chainId: chain.chainId, hardfork: chain.config.hardfork, gasCap: 50_000_000n } });
    attach();
    raws = await signedTransactions();
    const steps: [[string, unknown[]][], Hex][] = [
      [SETUP, raws[0]!],
      [SECOND_SETUP, raws[1]!],
    ];
    for (const [setup, raw] of steps) {
      for (const [method, params] of setup) await rpcResult(local, method, params);
      const slotBefore = BigInt(await rpcResult<Hex>(local, 'eth_getStorageAt', [TARGET, '0x0', 'latest']));
      const balanceBefore = BigInt(await rpcResult<Hex>(local, 'eth_getBalance', [SENDER.address, 'latest']));
      const nonceBefore = BigInt(await rpcResult<Hex>(local, 'eth_getTransactionCount', [SENDER.address, 'latest']));
      const hash = await rpcResult<Hex>(local, 'eth_sendRawTransaction', [raw]);
      const receipt = await rpcResult<Obj>(local, 'eth_getTransactionReceipt', [hash]);
      mined.push({ hash, blockNumber: receipt.blockNumber, receipt, slotBefore, balanceBefore, nonceBefore });
    }
  }, 60_000);
  afterAll(async () => {
    for (const tracer of tracers) tracer.close();
    await pool?.close();
    await chain?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('default: the transactions ran on the setters\' state (receipts, logs, final state)', async () => {
    expect(mined.map((m) => [m.slotBefore, m.nonceBefore])).toEqual([
      [0x2an, SENDER_NONCE],
      [0x100n, SENDER_NONCE + 1n],
    ]);
    expect(mined[0]!.balanceBefore).toBe(SENDER_BALANCE);
    expect(await rpcResult<Hex>(local, 'eth_getStorageAt', [TARGET, '0x0', 'latest'])).toBe(word(0x101n));
    expect(await rpcResult<Hex>(local, 'eth_getTransactionCount', [SENDER.address, 'latest'])).toBe(numberToHex(SENDER_NONCE + 2n));
  });

  // Tx 0 follows all four setters (on the parent's post-state its sender could not even pay); tx 1
  // follows one setStorageAt (on the parent's post-state it would replay with another slot value).
  it.each([0, 1])('behavior: in-process replays agree with what tx %i did', async (i) => {
    await checkTraces(local, mined[i]!, `in-process tx ${i}`);
  }, 30_000);

  it.each([0, 1])('behavior: replays on the trace worker pool agree with what tx %i did', async (i) => {
    await checkTraces(pooled, mined[i]!, `pool tx ${i}`);
  }, 60_000);

  it('behavior: after a restart from the same data dir, in-process and pooled replays still agree', async () => {
    for (const tracer of tracers.splice(0)) tracer.close();
    await chain.close();
    chain = await openChain();
    attach();
    for (const [i, tx] of mined.entries()) {
      await checkTraces(local, tx, `restarted tx ${i}`);
      await checkTraces(pooled, tx, `restarted pool tx ${i}`);
    }
  }, 60_000);
});

describe('prestateTracer after dev setters: differential against anvil', () => {
  let anvil: AnvilProcess;
  const dataDir = makeTempDir();
  let chain: DevChain;
  let tracer: Tracer;
  let table: MethodTable;
  const hashes: Hex[] = [];

  beforeAll(async () => {
    [anvil, chain] = await Promise.all([startAnvil(), createDevChain({ dataDir, clock: Date.now, minedRecordBytes: 0 })]);
    tracer = createTracer({ chain });
    table = tableFor(chain, tracer);
    const raws = await signedTransactions();
    for (const [setup, raw] of [
      [SETUP, raws[0]!],
      [SECOND_SETUP, raws[1]!],
    ] as const) {
      for (const [method, params] of setup) {
        await rpcResult(table, method, params);
        const theirs = await anvilRpc(anvil.url, anvilName(method), params);
        if ('error' in theirs) throw new Error(`anvil ${method}: ${theirs.error.message}`);
      }
      const ours = await rpcResult<Hex>(table, 'eth_sendRawTransaction', [raw]);
      expect(await anvilRpc(anvil.url, 'eth_sendRawTransaction', [raw])).toEqual({ result: ours });
      // anvil answers before its automined block is in: the next setters must find it mined, as ours do.
      await vi.waitFor(async () => expect(((await anvilRpc(anvil.url, 'eth_getTransactionReceipt', [ours])) as { result?: unknown }).result).toBeTruthy(), { timeout: 10_000, interval: 10 });
      hashes.push(ours);
    }
  }, 60_000);
  afterAll(async () => {
    tracer?.close();
    await anvil?.stop();
    await chain?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The sender's and the target's balance, nonce, code and storage from a prestate map. */
  function accounts(state: Obj): Obj {
    const pick = (a: Obj | undefined) => a && { balance: a.balance, nonce: a.nonce, code: a.code, storage: a.storage };
    return { sender: pick(state[SENDER.address.toLowerCase()]), target: pick(state[TARGET]) };
  }

  it('behavior: prestateTracer (default and diff mode) matches anvil for the setters\' accounts', async () => {
    for (const hash of hashes) {
      const theirs = (await anvilRpc(anvil.url, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }])) as { result: Obj };
      const ours = await rpcResult<Obj>(table, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }]);
      expect({ hash, ...accounts(ours) }).toEqual({ hash, ...accounts(theirs.result) });
      const theirDiff = (await anvilRpc(anvil.url, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])) as { result: { pre: Obj; post: Obj } };
      const ourDiff = await rpcResult<{ pre: Obj; post: Obj }>(table, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
      expect({ hash, pre: accounts(ourDiff.pre), post: accounts(ourDiff.post) }).toEqual({ hash, pre: accounts(theirDiff.result.pre), post: accounts(theirDiff.result.post) });
      expect(accounts(ours).target.storage).toBeDefined();
    }
  }, 30_000);
});
