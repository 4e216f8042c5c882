// eth_call, eth_estimateGas and the traced calls (debug_traceCall, trace_call) apply one set of
// rules to a call object: gas above the gas cap runs with the cap (geth's rule), a tip without a
// fee cap gets the block's base fee plus the tip as its cap, and the funds check prices the gas
// at that cap. Checked on both engines (the interpreter, and ethereumjs with TRACEHOOK_FAST_EVM=0).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Tracer, createTracer } from '../../engine/trace/createTracer.js';
import { createDebugNamespace } from './debugNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, createMethodTable } from './methodTable.js';
import { type ChainRpcFixture, COUNTER_ABI, openChainRpcFixture, rpc, rpcResult } from './testing/chainRpc.js';
import { createTraceNamespace } from './traceNamespace.js';

const GAS_CAP = 1_000_000n;
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each([{ fast: true }, { fast: false }])('call rules, interpreter $fast', ({ fast }) => {
  let f: ChainRpcFixture;
  let tracer: Tracer;
  let table: MethodTable;
  beforeAll(async () => {
    f = await openChainRpcFixture({ gasCap: GAS_CAP });
    tracer = createTracer({ chain: f.temp.chain, gasCap: GAS_CAP });
    table = createMethodTable(createEthNamespace({ chain: f.temp.chain }), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
  }, 30_000);
  afterAll(async () => {
    tracer?.close();
    await f?.dispose();
  });
  const previous = process.env.TRACEHOOK_FAST_EVM;
  beforeEach(() => {
    process.env.TRACEHOOK_FAST_EVM = fast ? '1' : '0';
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.TRACEHOOK_FAST_EVM;
    else process.env.TRACEHOOK_FAST_EVM = previous;
  });

  const increment = () => ({ from: f.accounts[3], to: f.counter, data: COUNTER_ABI.increment });

  it('behavior: gas above the cap runs with the cap in eth_call, debug_traceCall and trace_call alike', async () => {
    const call = { ...increment(), gas: '0x1000000000000' };
    expect(await rpc(table, 'eth_call', [call])).toHaveProperty('result');
    const traced = await rpcResult<Obj>(table, 'debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]);
    const capped = await rpcResult<Obj>(table, 'debug_traceCall', [{ ...increment(), gas: `0x${GAS_CAP.toString(16)}` }, 'latest', { tracer: 'callTracer' }]);
    expect(traced).toEqual(capped);
    expect(BigInt(traced.gas)).toBe(GAS_CAP);
    const parity = await rpcResult<Obj>(table, 'trace_call', [call, ['trace'], 'latest']);
    expect(parity).toEqual(await rpcResult<Obj>(table, 'trace_call', [{ ...increment(), gas: `0x${GAS_CAP.toString(16)}` }, ['trace'], 'latest']));
  });

  it('behavior: a tip without a fee cap is charged at base fee + tip in every method, and the funds check prices it so', async () => {
    const baseFee = BigInt((await rpcResult<Obj>(table, 'eth_getBlockByNumber', ['latest', false])).baseFeePerGas);
    expect(baseFee).toBeGreaterThan(0n);
    const call = { ...increment(), maxPriorityFeePerGas: '0x4', gas: '0x30000' };
    expect(await rpcResult(table, 'eth_call', [call])).toMatch(/^0x/);
    const prestate = await rpcResult<Obj>(table, 'debug_traceCall', [call, 'latest', { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]);
    const sender = f.accounts[3]!.toLowerCase();
    const paid = BigInt(prestate.pre[sender].balance) - BigInt(prestate.post[sender].balance);
    const gasUsed = BigInt((await rpcResult<Obj>(table, 'debug_traceCall', [call, 'latest', { tracer: 'callTracer' }])).gasUsed);
    expect(paid).toBe(gasUsed * (baseFee + 4n));
    // A sender that cannot pay the cap for the gas it names is refused the same way by both.
    const poor = { from: '0x00000000000000000000000000000000000000aa', to: f.counter, maxPriorityFeePerGas: '0x4', gas: '0x30000' };
    const refusal = await rpc(table, 'eth_call', [poor]);
    expect(refusal).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/^insufficient funds for gas \* price \+ value/) } });
    expect(await rpc(table, 'debug_traceCall', [poor, 'latest', { tracer: 'callTracer' }])).toEqual(refusal);
  });
});
