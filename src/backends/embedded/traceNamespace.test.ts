// The debug_trace* and trace_* namespaces on the embedded chain: option handling, every tracer,
// Parity result rules, bad input (each a clear JSON-RPC error that leaves the chain untouched),
// gas cap, timeout, overrides, and the rendered-trace cache with its reorg invalidation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, toFunctionSelector, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { type TempChain, openTempChain } from '../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../engine/trace/createTracer.js';
import { FEES, TRACE_PROBE, TRACE_TOKEN, buildTraceScenarios, type ScenarioAddresses } from '../../engine/trace/testing/traceScenarios.js';
import { bytesToHex } from '../../rpc/hex.js';
import { createDebugNamespace } from './debugNamespace.js';
import { createDevNamespace } from './devNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, createMethodTable } from './methodTable.js';
import { rpc, rpcResult } from './testing/chainRpc.js';
import { createTraceNamespace } from './traceNamespace.js';

type Obj = Record<string, unknown>;
const GAS_CAP = 2_000_000n;
/** JUMPDEST PUSH1 0 JUMP: loops until the gas runs out. */
const LOOP = { address: '0x00000000000000000000000000000000000000bc', code: '0x5b600056' };
/** JUMPDEST PUSH1 32 PUSH1 0 KECCAK256 POP PUSH1 0 JUMP: hashes 32 bytes until the gas cap. */
const HASH_LOOP = { address: '0x00000000000000000000000000000000000000bd', code: '0x5b602060002050600056' };
const RECIPIENT = '0x00000000000000000000000000000000000000aa';

describe('debug and trace namespaces on the embedded chain', () => {
  let temp: TempChain;
  let tracer: Tracer;
  let table: MethodTable;
  let deployer: PrivateKeyAccount;
  let addresses: ScenarioAddresses;
  const hashes = new Map<string, Hex>();
  const blockOf = new Map<string, Hex>();

  beforeAll(async () => {
    temp = await openTempChain({ clock: Date.now });
    tracer = createTracer({ chain: temp.chain, gasCap: GAS_CAP, stateRootAt: async (block) => (await temp.chain.stateAt(block)).getStateRoot() });
    table = createMethodTable(
      createEthNamespace({ chain: temp.chain }),
      createDevNamespace({ chain: temp.chain }),
      createDebugNamespace({ tracer }),
      createTraceNamespace({ tracer }),
    );
    deployer = privateKeyToAccount(bytesToHex(temp.chain.accounts[0]!.privateKey));
    const built = await buildTraceScenarios(deployer, Number(temp.chain.chainId), 0, RECIPIENT);
    addresses = built.addresses;
    for (const s of built.scenarios) {
      const hash = await rpcResult<Hex>(table, 'eth_sendRawTransaction', [s.raw]);
      hashes.set(s.name, hash);
      blockOf.set(s.name, (await rpcResult<{ blockNumber: Hex }>(table, 'eth_getTransactionReceipt', [hash])).blockNumber);
    }
  }, 60_000);
  afterAll(async () => {
    tracer?.close();
    await temp?.dispose();
  });

  const probeCall = (functionName: string, args: readonly unknown[] = []): Obj => ({
    from: deployer.address,
    to: addresses.probe,
    data: encodeFunctionData({ abi: TRACE_PROBE.abi, functionName, args }),
  });

  describe('debug_traceCall', () => {
    it('default: without options the result is a callTracer frame tree', async () => {
      const frame = await rpcResult<Obj>(table, 'debug_traceCall', [probeCall('nested', [2n]), 'latest']);
      expect(frame).toMatchObject({ type: 'CALL', from: deployer.address.toLowerCase(), to: addresses.probe.toLowerCase(), gas: `0x${GAS_CAP.toString(16)}` });
      expect((frame.calls as Obj[])[0]).toMatchObject({ type: 'CALL', from: addresses.probe.toLowerCase() });
    });

    it('args: an options object without tracer gives struct logs, shaped by the logger options', async () => {
      const logs = await rpcResult<{ gas: number; failed: boolean; returnValue: string; structLogs: Obj[] }>(table, 'debug_traceCall', [
        probeCall('nested', [1n]),
        'latest',
        { enableMemory: true, limit: 40 },
      ]);
      expect(logs.failed).toBe(false);
      expect(logs.structLogs).toHaveLength(40);
      expect(logs.structLogs[0]).toMatchObject({ pc: 0, op: 'PUSH1', depth: 1, stack: [] });
      expect(logs.structLogs.some((l) => Array.isArray(l.memory) && (l.memory as string[]).length > 0)).toBe(true);
      const bare = await rpcResult<{ structLogs: Obj[] }>(table, 'debug_traceCall', [probeCall('nested', [1n]), 'latest', { disableStack: true }]);
      expect(bare.structLogs.every((l) => l.stack === undefined && l.memory === undefined)).toBe(true);
      expect(bare.structLogs.length).toBeGreaterThan(40);
      const sload = bare.structLogs.find((l) => l.op === 'SLOAD')!;
      expect(Object.keys(sload.storage as Obj)).toHaveLength(1);
    });

    it('args: stateOverrides and blockOverrides change what the call sees', async () => {
      // NUMBER PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns the block number.
      const code = '0x4360005260206000f3';
      const target = '0x00000000000000000000000000000000000000bb';
      const frame = await rpcResult<Obj>(table, 'debug_traceCall', [
        { from: deployer.address, to: target },
        'latest',
        { tracer: 'callTracer', stateOverrides: { [target]: { code } }, blockOverrides: { number: '0x1234' } },
      ]);
      expect(frame.output).toBe(`0x${'1234'.padStart(64, '0')}`);
    });

    it('args: txIndex runs the call on the state inside its block', async () => {
      const balanceOf = { from: deployer.address, to: addresses.token, data: encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'balanceOf', args: [RECIPIENT] }) };
      const block = blockOf.get('pay')!;
      const before = await rpcResult<Obj>(table, 'debug_traceCall', [balanceOf, block, { tracer: 'callTracer', txIndex: 0 }]);
      const after = await rpcResult<Obj>(table, 'debug_traceCall', [balanceOf, block, { tracer: 'callTracer' }]);
      expect(BigInt(before.output as string)).toBe(0n);
      expect(BigInt(after.output as string)).toBe(5n * 10n ** 18n);
    });

    it('behavior: a contract may be the sender of a traced call, and its code stays in the pre- and post-state', async () => {
      const transfer = {
        from: addresses.probe,
        to: addresses.token,
        data: encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'transfer', args: ['0x00000000000000000000000000000000000000dd', 3n] }),
      };
      const frame = await rpcResult<Obj>(table, 'debug_traceCall', [transfer, 'latest', { tracer: 'callTracer' }]);
      expect(frame).toMatchObject({ from: addresses.probe.toLowerCase(), output: `0x${'1'.padStart(64, '0')}` });
      expect(frame.error).toBeUndefined();
      const diff = await rpcResult<{ pre: Record<string, Obj>; post: Record<string, Obj> }>(table, 'debug_traceCall', [
        transfer,
        'latest',
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ]);
      expect(diff.pre[addresses.probe.toLowerCase()]?.code).toMatch(/^0x6080/);
      // Like any sender, the contract's nonce moves; its code does not.
      expect(Object.keys(diff.post[addresses.probe.toLowerCase()]!)).toEqual(['nonce']);
    });

    it('behavior: a call above the gas cap runs with the cap (as eth_call, and geth), and a call without gas gets the cap', async () => {
      const overrides = { [LOOP.address]: { code: LOOP.code } };
      const capped = { gas: `0x${GAS_CAP.toString(16)}`, gasUsed: `0x${GAS_CAP.toString(16)}`, error: 'out of gas' };
      for (const gas of [{ gas: `0x${(GAS_CAP + 1n).toString(16)}` }, {}]) {
        const frame = await rpcResult<Obj>(table, 'debug_traceCall', [{ from: deployer.address, to: LOOP.address, ...gas }, 'latest', { tracer: 'callTracer', stateOverrides: overrides }]);
        expect(frame).toMatchObject(capped);
      }
    });

    it('error: a trace that runs past its timeout fails; it is never partial', async () => {
      const started = performance.now();
      // A keccak loop: the most CPU per unit of gas, so the gas cap's worth runs far past 5 ms on
      // either engine (the interpreter's tight JUMP loop would end by running out of gas first).
      const options = { tracer: 'callTracer', timeout: '5ms', stateOverrides: { [HASH_LOOP.address]: { code: HASH_LOOP.code } } };
      const response = await rpc(table, 'debug_traceCall', [{ from: deployer.address, to: HASH_LOOP.address }, 'latest', options]);
      expect(response).toEqual({ error: { code: -32000, message: 'execution timeout: exceeded 5 ms' } });
      expect(performance.now() - started).toBeLessThan(2000);
    });

    it('error: unknown tracers and bad tracer configs are -32602', async () => {
      const call = probeCall('nested', [1n]);
      for (const options of [
        { tracer: 'fooTracer' },
        { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'yes' } },
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } },
        { tracer: 'callTracer', timeout: 'soon' },
        { tracer: 'muxTracer', tracerConfig: { callTracer: {}, nope: {} } },
      ]) {
        const response = await rpc(table, 'debug_traceCall', [call, 'latest', options]);
        expect(response, JSON.stringify(options)).toMatchObject({ error: { code: -32602, message: expect.stringContaining('invalid argument 2 (options)') } });
      }
    });
  });

  describe('debug_traceTransaction and debug_traceBlock*', () => {
    it('behavior: every tracer renders a mined transaction', async () => {
      const hash = hashes.get('pay')!;
      const mux = await rpcResult<Obj>(table, 'debug_traceTransaction', [
        hash,
        { tracer: 'muxTracer', tracerConfig: { callTracer: { withLog: true }, '4byteTracer': {}, noopTracer: {}, flatCallTracer: {} } },
      ]);
      const call = mux.callTracer as Obj;
      expect(((call.calls as Obj[])[0]!.logs as Obj[])[0]).toMatchObject({ address: addresses.token.toLowerCase(), index: '0x0', position: '0x0' });
      expect(mux['4byteTracer']).toEqual({ [`${toFunctionSelector('pay(address,uint256)')}-64`]: 1, '0xa9059cbb-64': 1 });
      expect(mux.noopTracer).toEqual({});
      expect((mux.flatCallTracer as Obj[]).map((e) => e.traceAddress)).toEqual([[], [0]]);
      const prestate = await rpcResult<Obj>(table, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
      expect(Object.keys(prestate.post as Obj)).toContain(addresses.token.toLowerCase());
    });

    it('behavior: debug_traceBlockByNumber and ByHash give [{txHash, result}]', async () => {
      const number = blockOf.get('nested')!;
      const byNumber = await rpcResult<Obj[]>(table, 'debug_traceBlockByNumber', [number, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }]);
      expect(byNumber).toHaveLength(1);
      expect(byNumber[0]).toMatchObject({ txHash: hashes.get('nested'), result: { type: 'CALL' } });
      expect((byNumber[0]!.result as Obj).calls).toBeUndefined();
      const block = await rpcResult<{ hash: Hex }>(table, 'eth_getBlockByNumber', [number, false]);
      expect(await rpcResult(table, 'debug_traceBlockByHash', [block.hash, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } }])).toEqual(byNumber);
    });

    it('error: unknown hashes, blocks past the head and bad params', async () => {
      const unknown = `0x${'ab'.repeat(32)}`;
      expect(await rpc(table, 'debug_traceTransaction', [unknown])).toMatchObject({ error: { code: -32001, message: `transaction ${unknown} not found` } });
      expect(await rpc(table, 'debug_traceBlockByHash', [unknown])).toMatchObject({ error: { code: -32001 } });
      expect(await rpc(table, 'debug_traceBlockByNumber', ['0xffff'])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('not found') } });
      expect(await rpc(table, 'debug_traceTransaction', ['0x1234'])).toMatchObject({ error: { code: -32602 } });
      expect(await rpc(table, 'debug_traceTransaction', [])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('missing value') } });
    });
  });

  describe('trace_*', () => {
    it('default: trace_call returns output, trace, and null for types not asked for', async () => {
      const result = await rpcResult<Obj>(table, 'trace_call', [probeCall('nested', [1n]), ['trace'], 'latest']);
      expect(Object.keys(result).sort()).toEqual(['output', 'stateDiff', 'trace', 'vmTrace']);
      expect(result.stateDiff).toBeNull();
      expect(result.vmTrace).toBeNull();
      expect((result.trace as Obj[]).map((e) => e.traceAddress)).toEqual([[], [0]]);
      const both = await rpcResult<Obj>(table, 'trace_call', [probeCall('nested', [1n]), ['trace', 'stateDiff'], 'latest']);
      expect(both.trace).toEqual(result.trace);
      expect(Object.keys(both.stateDiff as Obj)).toContain(deployer.address.toLowerCase());
    });

    it('behavior: vmTrace nests the child frame of each CALL under `sub`', async () => {
      const { vmTrace } = await rpcResult<{ vmTrace: { code: string; ops: Obj[] } }>(table, 'trace_call', [probeCall('nested', [1n]), ['vmTrace'], 'latest']);
      const call = vmTrace.ops.find((op) => op.op === 'CALL')!;
      const sub = call.sub as { code: string; ops: Obj[] };
      expect(sub.ops.length).toBeGreaterThan(10);
      expect(vmTrace.ops[0]).toMatchObject({ pc: 0, op: 'PUSH1', cost: 3, ex: { push: ['0x80'], mem: null, store: null } });
      const mstore = vmTrace.ops.find((op) => op.op === 'MSTORE')!;
      expect(mstore.ex).toMatchObject({ mem: { off: 64, data: `0x${'80'.padStart(64, '0')}` } });
      expect((call.ex as { push: string[] }).push).toEqual(['0x1']);
    });

    it('error: a block hash, empty or unknown trace types and wrong arity are -32602', async () => {
      const block = await rpcResult<{ hash: Hex }>(table, 'eth_getBlockByNumber', ['latest', false]);
      const byHash = await rpc(table, 'trace_call', [probeCall('nested', [1n]), ['trace'], block.hash]);
      expect(byHash).toMatchObject({ error: { code: -32602, message: expect.stringContaining('block hash is not accepted') } });
      expect(await rpc(table, 'trace_call', [probeCall('nested', [1n]), [], 'latest'])).toMatchObject({ error: { code: -32602 } });
      expect(await rpc(table, 'trace_call', [probeCall('nested', [1n]), ['traces'], 'latest'])).toMatchObject({ error: { code: -32602 } });
      expect(await rpc(table, 'trace_transaction', [hashes.get('nested'), 'extra'])).toMatchObject({ error: { code: -32602, message: expect.stringContaining('too many arguments') } });
      expect(await rpc(table, 'trace_transaction', [])).toMatchObject({ error: { code: -32602 } });
      expect(await rpc(table, 'trace_block', ['0xffff'])).toMatchObject({ error: { code: -32602 } });
    });

    it('behavior: trace_transaction carries locators, parent first', async () => {
      const entries = await rpcResult<Obj[]>(table, 'trace_transaction', [hashes.get('nested')]);
      expect(entries.map((e) => e.traceAddress)).toEqual([[], [0], [0, 0], [0, 0, 0], [0, 0, 0, 0]]);
      expect(entries[0]).toMatchObject({ blockNumber: Number(blockOf.get('nested')), transactionHash: hashes.get('nested'), transactionPosition: 0, subtraces: 1 });
      expect(await rpcResult(table, 'trace_get', [hashes.get('nested'), ['0x0']])).toEqual(entries[1]);
      expect(await rpcResult(table, 'trace_get', [hashes.get('nested'), ['0x5']])).toBeNull();
      const replay = await rpcResult<Obj>(table, 'trace_replayTransaction', [hashes.get('nested'), ['trace']]);
      const strip = ({ blockHash: _a, blockNumber: _b, transactionHash: _c, transactionPosition: _d, ...rest }: Obj) => rest;
      expect(replay.trace).toEqual(entries.map(strip));
    });

    it('behavior: trace_replayBlockTransactions, trace_block and trace_filter', async () => {
      const number = blockOf.get('makeAndKill')!;
      const replays = await rpcResult<Obj[]>(table, 'trace_replayBlockTransactions', [number, ['stateDiff']]);
      expect(replays).toHaveLength(1);
      expect(replays[0]).toMatchObject({ transactionHash: hashes.get('makeAndKill'), trace: [], vmTrace: null });
      const block = await rpcResult<Obj[]>(table, 'trace_block', [number]);
      expect(block.map((e) => e.type)).toEqual(['call', 'create', 'call', 'suicide']);
      const filtered = await rpcResult<Obj[]>(table, 'trace_filter', [{ fromBlock: '0x1', toBlock: 'latest', toAddress: [RECIPIENT] }]);
      expect(filtered.map((e) => e.transactionHash)).toEqual([hashes.get('ethTransfer')]);
      const page = await rpcResult<Obj[]>(table, 'trace_filter', [{ fromBlock: '0x1', fromAddress: [addresses.probe.toLowerCase()], after: 1, count: 2 }]);
      expect(page).toHaveLength(2);
      expect(await rpc(table, 'trace_filter', [{ fromBlock: '0x1', bogus: 1 }])).toMatchObject({ error: { code: -32602 } });
    });

    it('behavior: trace_callMany chains state; trace_rawTransaction leaves the chain untouched', async () => {
      const transfer = { from: deployer.address, to: addresses.token, data: encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'transfer', args: ['0x00000000000000000000000000000000000000cc', 77n] }) };
      const balanceOf = { from: deployer.address, to: addresses.token, data: encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'balanceOf', args: ['0x00000000000000000000000000000000000000cc'] }) };
      const [, second] = await rpcResult<Obj[]>(table, 'trace_callMany', [[[transfer, ['trace']], [balanceOf, ['trace']]], 'latest']);
      expect(BigInt(second!.output as string)).toBe(77n);
      const head = await rpcResult(table, 'eth_blockNumber');
      const nonce = await rpcResult<Hex>(table, 'eth_getTransactionCount', [deployer.address, 'latest']);
      const raw = await deployer.signTransaction({ type: 'eip1559', chainId: Number(temp.chain.chainId), nonce: Number(nonce), to: RECIPIENT, value: 1n, gas: 21_000n, ...FEES });
      const result = await rpcResult<Obj>(table, 'trace_rawTransaction', [raw, ['trace', 'stateDiff']]);
      expect(((result.trace as Obj[])[0]!.action as Obj).to).toBe(RECIPIENT);
      expect(await rpcResult(table, 'eth_blockNumber')).toBe(head);
      expect(await rpcResult(table, 'eth_getTransactionCount', [deployer.address, 'latest'])).toBe(nonce);
      expect(await rpc(table, 'trace_rawTransaction', ['0x1234', ['trace']])).toMatchObject({ error: { code: -32602 } });
    });
  });

  it('behavior: rendered traces of mined transactions are cached and dropped when blocks leave the chain', async () => {
    const snapshot = await rpcResult<Hex>(table, 'evm_snapshot');
    const raw = await deployer.signTransaction({
      type: 'eip1559',
      chainId: Number(temp.chain.chainId),
      nonce: Number(await rpcResult<Hex>(table, 'eth_getTransactionCount', [deployer.address, 'latest'])),
      to: addresses.probe,
      data: encodeFunctionData({ abi: TRACE_PROBE.abi, functionName: 'nested', args: [1n] }),
      gas: 500_000n,
      ...FEES,
    });
    const hash = await rpcResult<Hex>(table, 'eth_sendRawTransaction', [raw]);
    const first = await rpcResult(table, 'trace_transaction', [hash]);
    const cached = tracer.cache.stats().entries;
    expect(cached).toBeGreaterThan(0);
    expect(await rpcResult(table, 'trace_transaction', [hash])).toEqual(first);
    expect(tracer.cache.stats().entries).toBe(cached);
    await rpcResult(table, 'evm_revert', [snapshot]);
    expect(tracer.cache.stats().entries).toBe(0);
    expect(await rpc(table, 'trace_transaction', [hash])).toMatchObject({ error: { code: -32001 } });
    // The same transaction mined again lands in another block: its trace names that block.
    await rpcResult(table, 'evm_mine');
    expect(await rpcResult(table, 'eth_sendRawTransaction', [raw])).toBe(hash);
    const receipt = await rpcResult<{ blockHash: Hex; blockNumber: Hex }>(table, 'eth_getTransactionReceipt', [hash]);
    expect(receipt.blockHash).not.toBe((first as Obj[])[0]!.blockHash);
    const again = await rpcResult<Obj[]>(table, 'trace_transaction', [hash]);
    expect(again[0]).toMatchObject({ blockHash: receipt.blockHash, blockNumber: Number(receipt.blockNumber) });
    const frame = await rpcResult<Obj>(table, 'debug_traceTransaction', [hash.toUpperCase().replace('0X', '0x'), { tracer: 'callTracer' }]);
    expect(frame).toMatchObject({ type: 'CALL', to: addresses.probe.toLowerCase() });
    await rpcResult(table, 'evm_revert', [snapshot]);
  });

  it('behavior: a trace computed while blocks leave the chain does not fill the cache', async () => {
    const snapshot = await rpcResult<Hex>(table, 'evm_snapshot');
    await rpcResult(table, 'evm_mine');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pending = tracer.cached('test:during-reorg', async () => {
      await gate;
      return 'stale';
    });
    await rpcResult(table, 'evm_revert', [snapshot]);
    release();
    expect(await pending).toBe('stale');
    expect(tracer.cache.get('test:during-reorg')).toBeUndefined();
    expect(await tracer.cached('test:during-reorg', async () => 'fresh')).toBe('fresh');
  });
});
