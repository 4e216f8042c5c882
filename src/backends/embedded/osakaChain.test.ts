// An Osaka chain (anvil 1.7.1's default fork, and mainnet's): CLZ on the interpreter, and calls that
// name no gas (or more than EIP-7825's 2^24 transaction cap) run as geth runs them. The same
// requests go to anvil on Osaka where the two agree; where anvil is looser than geth (it caps an
// estimate at the block gas limit and accepts transactions above the cap) geth's rule is checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TempChain, openTempChain } from '../../engine/chain/testing/tempChain.js';
import { type Tracer, createTracer } from '../../engine/trace/createTracer.js';
import { fastCallStats } from '../../engine/interpreter/fastCall.js';
import { type AnvilProcess, startAnvil } from '../../testing/startAnvil.js';
import { createDebugNamespace } from './debugNamespace.js';
import { createDevNamespace } from './devNamespace.js';
import { createEthNamespace } from './ethNamespace.js';
import { type MethodTable, createMethodTable } from './methodTable.js';
import { type RpcResponse, rpc } from './testing/chainRpc.js';
import type { Json } from './testing/traceAnvilPair.js';
import { tracedCallAsGeth } from './testing/traceDifferences.js';
import { hexToBytes } from 'viem';

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CLZ_AT = '0x00000000000000000000000000000000000000aa';
const SPIN_AT = '0x00000000000000000000000000000000000000bb';
// Stores CLZ of 0, 1, 2^255 and 2^256 - 1 in memory and returns the four words.
const CLZ_CODE = '0x5f1e5f52' + '60011e602052' + '7f8000000000000000000000000000000000000000000000000000000000000000' + '1e604052' + '5f19' + '1e606052' + '60805ff3';
const OVERRIDES = { [CLZ_AT]: { code: CLZ_CODE }, [SPIN_AT]: { code: '0x5b5f56' } };
const TWO24 = 16_777_216;

async function anvilRpc(url: string, method: string, params: unknown[]): Promise<RpcResponse> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
  return body.error ? { error: body.error } : { result: body.result ?? null };
}

/** anvil's debug_traceCall answer in our conventions (testing/traceDifferences.ts). */
function asGeth(answer: RpcResponse, call: { data?: string; gas: bigint }): RpcResponse {
  return 'result' in answer ? { result: tracedCallAsGeth(answer.result as Json, { data: hexToBytes((call.data ?? '0x') as `0x${string}`), gas: call.gas }) } : answer;
}

describe('an Osaka chain against anvil on Osaka', () => {
  let anvil: AnvilProcess;
  let temp: TempChain;
  let tracer: Tracer;
  let table: MethodTable;
  const ours = (method: string, params: unknown[]) => rpc(table, method, params);
  const theirs = (method: string, params: unknown[]) => anvilRpc(anvil.url, method, params);

  beforeAll(async () => {
    [anvil, temp] = await Promise.all([startAnvil(['--hardfork', 'osaka']), openTempChain({ hardfork: 'osaka', clock: Date.now })]);
    tracer = createTracer({ chain: temp.chain });
    const deps = { chain: temp.chain };
    table = createMethodTable(createEthNamespace(deps), createDevNamespace(deps), createDebugNamespace({ tracer }));
  }, 60_000);
  afterAll(async () => {
    tracer?.close();
    await Promise.all([anvil?.stop(), temp?.dispose()]);
  });

  it('behavior: eth_call of CLZ runs on the interpreter with no gas named and with 30M (above the transaction cap), as anvil answers', async () => {
    const expected = '0x' + [256, 255, 0, 0].map((n) => n.toString(16).padStart(64, '0')).join('');
    const before = fastCallStats.answered;
    for (const gas of [undefined, '0x1c9c380']) {
      const params = [{ from: FROM, to: CLZ_AT, ...(gas ? { gas } : {}) }, 'latest', OVERRIDES];
      const mine = await ours('eth_call', params);
      expect(mine).toEqual({ result: expected });
      expect(mine).toEqual(await theirs('eth_call', params));
    }
    expect(fastCallStats.answered - before).toBe(2);
  });

  it('behavior: on ethereumjs too (P256VERIFY, which the interpreter hands over, and TRACEHOOK_FAST_EVM=0), a call names no gas or more than the cap, as anvil answers', async () => {
    // A P256VERIFY of a signature that does not verify: empty output, its 6,900 gas charged.
    const p256 = { from: FROM, to: '0x0000000000000000000000000000000000000100', data: '0x' + '11'.repeat(160) };
    const handedOver = fastCallStats.handedOver;
    for (const gas of [undefined, '0x1c9c380']) {
      const params = [{ ...p256, ...(gas ? { gas } : {}) }, 'latest'];
      const mine = await ours('eth_call', params);
      expect(mine).toEqual({ result: '0x' });
      expect(mine).toEqual(await theirs('eth_call', params));
    }
    expect(fastCallStats.handedOver - handedOver).toBe(2);
    expect(await ours('eth_estimateGas', [p256])).toEqual(await theirs('eth_estimateGas', [p256]));
    process.env.TRACEHOOK_FAST_EVM = '0';
    try {
      const params = [{ from: FROM, to: CLZ_AT }, 'latest', OVERRIDES];
      expect(await ours('eth_call', params)).toEqual(await theirs('eth_call', params));
      const traced = [{ from: FROM, to: CLZ_AT, gas: '0x1c9c380' }, 'latest', { tracer: 'callTracer', stateOverrides: OVERRIDES }];
      expect(await ours('debug_traceCall', traced)).toEqual(asGeth(await theirs('debug_traceCall', traced), { gas: 30_000_000n }));
    } finally {
      delete process.env.TRACEHOOK_FAST_EVM;
    }
  });

  it('behavior: debug_traceCall of CLZ, struct logs and callTracer, equal to anvil\'s', async () => {
    // The gas named: anvil's default for traced calls is the block's gas limit, geth's (and ours) the RPC gas cap.
    for (const options of [{}, { tracer: 'callTracer' }]) {
      const params = [{ from: FROM, to: CLZ_AT, gas: '0x1c9c380' }, 'latest', { ...options, stateOverrides: OVERRIDES }];
      const mine = await ours('debug_traceCall', params);
      expect('result' in mine, JSON.stringify(mine)).toBe(true);
      expect(mine).toEqual(asGeth(await theirs('debug_traceCall', params), { gas: 30_000_000n }));
    }
  });

  it('behavior: eth_estimateGas and eth_sendTransaction with no gas named give what anvil gives (the same transaction hash)', async () => {
    const transfer = { from: FROM, to: '0x0000000000000000000000000000000000001234', value: '0x1' };
    expect(await ours('eth_estimateGas', [transfer])).toEqual(await theirs('eth_estimateGas', [transfer]));
    const sent = await ours('eth_sendTransaction', [transfer]);
    expect(sent).toEqual(await theirs('eth_sendTransaction', [transfer]));
  });

  it('behavior: as geth, an estimate searches up to the transaction cap and a transaction above it is refused', async () => {
    // A loop to the last unit of gas: no gas up to the cap is enough (anvil searches to 30M here).
    expect(await ours('eth_estimateGas', [{ from: FROM, to: SPIN_AT }, 'latest', OVERRIDES])).toEqual({
      error: { code: -32000, message: `gas required exceeds allowance (${TWO24})` },
    });
    const over = await ours('eth_sendTransaction', [{ from: FROM, to: FROM, value: '0x1', gas: `0x${(TWO24 + 1).toString(16)}` }]);
    expect(over).toMatchObject({ error: { code: -32602, message: expect.stringContaining('EIP-7825') } });
    const at = await ours('eth_sendTransaction', [{ from: FROM, to: FROM, value: '0x1', gas: `0x${TWO24.toString(16)}` }]);
    expect('result' in at, JSON.stringify(at)).toBe(true);
  });
});
