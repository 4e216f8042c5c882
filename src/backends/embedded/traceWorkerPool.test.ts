// The trace methods answer the same through a worker pool as in-process (every method, geth
// tracers and Parity types, overrides, txIndex, errors and timeouts), workers see blocks mined and
// dev-setter state committed after they opened the chain, and eth_blockNumber stays responsive
// while traces run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { type TempChain, openTempChain } from '../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../engine/trace/createTracer.js';
import { type TracePool, createTracePool } from '../../engine/trace/tracePool.js';
import type { TraceJob } from '../../engine/trace/traceJob.js';
import { TRACE_PROBE, buildTraceScenarios, type ScenarioAddresses } from '../../engine/trace/testing/traceScenarios.js';
import { bytesToHex, hexToBytes } from '../../rpc/hex.js';
import { ExecutionCancelledError } from '../../engine/execute/executionGuard.js';
import { createDebugNamespace } from './debugNamespace.js';
import { createDevNamespace } from './devNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, createMethodTable } from './methodTable.js';
import { rpc, rpcResult } from './testing/chainRpc.js';
import { createTraceNamespace } from './traceNamespace.js';

const GAS_CAP = 2_000_000n;
const LOOP = { address: '0x00000000000000000000000000000000000000bc', code: '0x5b600056' };
/** JUMPDEST PUSH1 32 PUSH1 0 KECCAK256 POP PUSH1 0 JUMP: hashes 32 bytes until the gas cap. */
const HASH_LOOP = { address: '0x00000000000000000000000000000000000000bd', code: '0x5b602060002050600056' };
const RECIPIENT = '0x00000000000000000000000000000000000000aa';
const GETH_TRACERS = [
  { tracer: 'callTracer', tracerConfig: { withLog: true } },
  { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
  { tracer: 'flatCallTracer' },
  { tracer: '4byteTracer' },
  { enableMemory: true, enableReturnData: true },
];

describe('trace methods through the worker pool', () => {
  let temp: TempChain;
  let pool: TracePool;
  let local: { tracer: Tracer; table: MethodTable };
  let pooled: { tracer: Tracer; table: MethodTable };
  let deployer: PrivateKeyAccount;
  let addresses: ScenarioAddresses;
  const hashes: Hex[] = [];

  function tableFor(tracer: Tracer): MethodTable {
    return createMethodTable(createEthNamespace({ chain: temp.chain }), createDevNamespace({ chain: temp.chain }), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
  }

  beforeAll(async () => {
    temp = await openTempChain({ clock: Date.now });
    // The pool opens the chain before any transaction: workers must see later blocks.
    pool = createTracePool({ size: 1, worker: { dataDir: temp.dataDir, chainId: temp.chain.chainId, hardfork: temp.chain.config.hardfork, gasCap: GAS_CAP } });
    const localTracer = createTracer({ chain: temp.chain, gasCap: GAS_CAP });
    const pooledTracer = createTracer({ chain: temp.chain, gasCap: GAS_CAP, runJob: (job) => pool.run(job) });
    local = { tracer: localTracer, table: tableFor(localTracer) };
    pooled = { tracer: pooledTracer, table: tableFor(pooledTracer) };
    deployer = privateKeyToAccount(bytesToHex(temp.chain.accounts[0]!.privateKey));
    const built = await buildTraceScenarios(deployer, Number(temp.chain.chainId), 0, RECIPIENT);
    addresses = built.addresses;
    for (const s of built.scenarios) hashes.push(await rpcResult<Hex>(local.table, 'eth_sendRawTransaction', [s.raw]));
  }, 60_000);
  afterAll(async () => {
    local?.tracer.close();
    pooled?.tracer.close();
    await pool?.close();
    await temp?.dispose();
  });

  /** Both tables' answers (results or errors) to the same call, which must be equal. */
  async function expectSame(method: string, params: unknown[]): Promise<unknown> {
    const viaPool = await rpc(pooled.table, method, params);
    const inProcess = await rpc(local.table, method, params);
    expect(viaPool, `${method} ${JSON.stringify(params).slice(0, 120)}`).toEqual(inProcess);
    return viaPool;
  }

  const probeCall = (functionName: string, args: readonly unknown[] = []) => ({
    from: deployer.address,
    to: addresses.probe,
    data: encodeFunctionData({ abi: TRACE_PROBE.abi, functionName, args }),
  });

  it('default: mined-transaction traces are identical for every scenario, geth tracer and Parity type', async () => {
    for (const hash of hashes) {
      for (const options of GETH_TRACERS) await expectSame('debug_traceTransaction', [hash, options]);
      await expectSame('trace_transaction', [hash]);
      await expectSame('trace_replayTransaction', [hash, ['trace', 'stateDiff', 'vmTrace']]);
      await expectSame('trace_get', [hash, ['0x0']]);
    }
    expect(pool.stats()).toMatchObject({ workers: 1, replaced: 0 });
  }, 120_000);

  it('default: block traces are identical (geth, trace_block, replay, trace_filter)', async () => {
    for (const number of ['0x1', '0x5', '0xb', 'latest']) {
      await expectSame('debug_traceBlockByNumber', [number, { tracer: 'callTracer' }]);
      await expectSame('trace_block', [number]);
      await expectSame('trace_replayBlockTransactions', [number, ['trace', 'stateDiff']]);
    }
    await expectSame('trace_filter', [{ fromBlock: '0x1', toBlock: 'latest', toAddress: [addresses.probe] }]);
  }, 60_000);

  it('args: calls with overrides, txIndex, block overrides and many calls are identical', async () => {
    await expectSame('debug_traceCall', [probeCall('nested', [3n]), 'latest']);
    await expectSame('debug_traceCall', [probeCall('mixed', [5n]), '0x6', { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
    await expectSame('debug_traceCall', [probeCall('nested', [1n]), '0x8', { tracer: 'callTracer', txIndex: 0, blockOverrides: { number: '0x100', time: '0x5' } }]);
    await expectSame('debug_traceCall', [{ from: deployer.address, to: LOOP.address }, 'latest', { tracer: 'callTracer', stateOverrides: { [LOOP.address]: { code: LOOP.code } } }]);
    await expectSame('trace_call', [probeCall('makeChildren', [`0x${'22'.repeat(32)}`]), ['trace', 'stateDiff', 'vmTrace'], 'latest']);
    await expectSame('trace_callMany', [[[probeCall('nested', [2n]), ['trace']], [probeCall('mixed', [3n]), ['stateDiff']]], 'latest']);
    const raw = await deployer.signTransaction({ type: 'eip1559', chainId: Number(temp.chain.chainId), nonce: hashes.length, to: addresses.probe, data: probeCall('nested', [2n]).data, gas: 500_000n, maxFeePerGas: 5_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
    await expectSame('trace_rawTransaction', [raw, ['trace', 'stateDiff']]);
  }, 60_000);

  it('behavior: calls at the head see dev-setter state (the working root reaches the worker)', async () => {
    await rpcResult(local.table, 'anvil_setBalance', [RECIPIENT, '0x1234567']);
    const result = (await expectSame('debug_traceCall', [{ from: RECIPIENT, to: deployer.address, value: '0x1' }, 'latest', { tracer: 'prestateTracer' }])) as { result: Record<string, { balance: string }> };
    expect(result.result[RECIPIENT]!.balance).toBe('0x1234567');
  });

  /** eth_blockNumber latencies (ms, sorted) on `table` while 8 loops of distinct debug_traceCalls run for `durationMs`. */
  async function blockNumberLatencies(table: MethodTable, durationMs: number): Promise<number[]> {
    const end = performance.now() + durationMs;
    let n = 0;
    const load = async () => {
      while (performance.now() < end) await rpcResult(table, 'debug_traceCall', [probeCall('nested', [BigInt(1 + (n++ % 6))]), 'latest', { tracer: 'callTracer' }]);
    };
    const latencies: number[] = [];
    const probe = async () => {
      while (performance.now() < end) {
        const started = performance.now();
        // Through a macrotask, as a request arriving on a socket is: microtasks alone would
        // interleave with an in-process trace's promise chain and hide the blocking.
        await new Promise((resolve) => setImmediate(resolve));
        await rpcResult(table, 'eth_blockNumber');
        latencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    await Promise.all([...Array.from({ length: 8 }, load), probe()]);
    return latencies.sort((x, y) => x - y);
  }

  it('behavior: eth_blockNumber stays responsive while traces run on the worker', async () => {
    const latencies = await blockNumberLatencies(pooled.table, 1500);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    // In-process the same load gives p50 ≈ 15 ms (traces hold the event loop up to 20 ms at a time).
    expect(at(0.5)).toBeLessThan(5);
    expect(at(0.99)).toBeLessThan(30);
  }, 30_000);

  it('behavior: a call cancelled while it runs stops in the worker, and the calls after it on that worker answer', async () => {
    const block = await pooled.tracer.requireBlock(undefined);
    const render = { format: 'geth', request: { tracer: 'structLogger', config: { limit: 1 } } } as const;
    const override = new Map([[LOOP.address, { code: hexToBytes(LOOP.code) }]]);
    const loop = { call: { from: hexToBytes(deployer.address), to: hexToBytes(LOOP.address) }, render };
    for (let round = 0; round < 3; round++) {
      const client = new AbortController();
      // The loop's struct logs take hundreds of ms: the cancel lands at a yield to the worker's event loop.
      const job: TraceJob = { kind: 'calls', blockHash: block.hash(), stateRoot: temp.chain.stateRootAt(block), stateOverrides: override, calls: [loop], timeoutMs: 10_000 };
      const cancelled = pool.run(job, { signal: client.signal }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 30));
      client.abort();
      expect(await cancelled).toBeInstanceOf(ExecutionCancelledError);
      await expectSame('debug_traceCall', [probeCall('nested', [1n]), 'latest', { tracer: 'callTracer' }]);
    }
    expect(pool.stats().replaced).toBe(0);
  });

  it('error: errors and timeouts are the same errors (never a partial trace)', async () => {
    await expectSame('debug_traceTransaction', [`0x${'ab'.repeat(32)}`]);
    await expectSame('debug_traceCall', [probeCall('nested', [1n]), '0x1', { txIndex: 5 }]);
    await expectSame('debug_traceCall', [{ ...probeCall('nested', [1n]), gas: `0x${(GAS_CAP + 1n).toString(16)}` }, 'latest']);
    // A keccak loop (the most CPU per unit of gas) runs far past 5 ms on either engine before its gas runs out.
    const options = { tracer: 'callTracer', timeout: '5ms', stateOverrides: { [HASH_LOOP.address]: { code: HASH_LOOP.code } } };
    const response = await rpc(pooled.table, 'debug_traceCall', [{ from: deployer.address, to: HASH_LOOP.address }, 'latest', options]);
    expect(response).toEqual({ error: { code: -32000, message: 'execution timeout: exceeded 5 ms' } });
    expect(pool.stats().replaced).toBe(0);
  });
});
