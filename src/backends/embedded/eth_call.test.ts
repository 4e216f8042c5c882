// eth_call / eth_estimateGas: reverts as code 3 with data and reason, halts as -32000, state
// overrides (balance, nonce, code, state, stateDiff), historical blocks and the gas cap; the same
// answers in-process and on the trace worker pool (where the service runs them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainRpcFixture, COUNTER, COUNTER_ABI, openChainRpcFixture, rpc, rpcResult } from './testing/chainRpc.js';

const word = (n: number | bigint) => `0x${n.toString(16).padStart(64, '0')}`;
// fail("boom"): selector + offset + length + "boom"
const FAIL_BOOM = `${COUNTER_ABI.fail}${'20'.padStart(64, '0')}${'4'.padStart(64, '0')}${'626f6f6d'.padEnd(64, '0')}`;

describe.each([
  { where: 'in-process', workers: 0 },
  { where: 'on the trace worker pool', workers: 1 },
])('eth_call and eth_estimateGas $where', ({ workers }) => {
  let f: ChainRpcFixture;
  beforeAll(async () => {
    f = await openChainRpcFixture({ gasCap: 1_000_000n }, workers);
  }, 30_000);
  afterAll(() => f.dispose());

  it('default: reads contract state at latest and at historical blocks', async () => {
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.counter, data: COUNTER_ABI.count }])).toBe(word(2));
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.counter, input: COUNTER_ABI.count }, '0x2'])).toBe(word(1));
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.counter, data: COUNTER_ABI.increment }, 'latest'])).toBe(word(3));
    // The call changed nothing.
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.counter, data: COUNTER_ABI.count }])).toBe(word(2));
  });

  it('behavior: a contract may be the sender of a call (EIP-3607 does not apply to calls)', async () => {
    expect(await rpcResult(f.table, 'eth_call', [{ from: f.counter, to: f.counter, data: COUNTER_ABI.count }])).toBe(word(2));
    expect(await rpcResult(f.table, 'eth_estimateGas', [{ from: f.counter, to: f.accounts[1], value: '0x0' }])).toBe('0x5208');
    expect(await rpcResult(f.table, 'eth_getCode', [f.counter, 'latest'])).toBe(COUNTER.deployedBytecode);
  });

  it('error: a revert is code 3 with the revert data and the decoded reason', async () => {
    const response = await rpc(f.table, 'eth_call', [{ to: f.counter, data: FAIL_BOOM }]);
    expect(response).toEqual({
      error: { code: 3, message: 'execution reverted: boom', data: `0x08c379a0${'20'.padStart(64, '0')}${'4'.padStart(64, '0')}${'626f6f6d'.padEnd(64, '0')}` },
    });
    expect(await rpc(f.table, 'eth_estimateGas', [{ to: f.counter, data: FAIL_BOOM }])).toEqual(response);
    expect(await rpc(f.table, 'eth_call', [{ to: f.counter, data: '0x12345678' }])).toEqual({ error: { code: 3, message: 'execution reverted', data: '0x' } });
  });

  it('error: a panic is decoded, an out-of-gas halt is -32000', async () => {
    // Stores Panic(0x12) at memory 0 (selector word, then the code at offset 4) and reverts with 36 bytes.
    const panicData = `0x4e487b71${'12'.padStart(64, '0')}`;
    const reverting = `0x7f4e487b71${'0'.repeat(56)}6000527f${'12'.padStart(64, '0')}60045260246000fd`;
    const response = await rpc(f.table, 'eth_call', [{ to: f.accounts[9], data: '0x' }, 'latest', { [f.accounts[9]]: { code: reverting } }]);
    expect(response).toMatchObject({ error: { code: 3, message: 'execution reverted: division or modulo by zero', data: panicData } });
    const loop = '0x5b600056'; // JUMPDEST PUSH1 0 JUMP: spins until out of gas
    expect(await rpc(f.table, 'eth_call', [{ to: f.accounts[9], gas: '0x186a0' }, 'latest', { [f.accounts[9]]: { code: loop } }])).toEqual({ error: { code: -32000, message: 'out of gas' } });
    expect(await rpc(f.table, 'eth_estimateGas', [{ to: f.accounts[9] }, 'latest', { [f.accounts[9]]: { code: loop } }])).toEqual({
      error: { code: -32000, message: 'gas required exceeds allowance (1000000)' },
    });
  });

  it('behavior: state overrides replace balance, nonce, code, whole storage or single slots for one call', async () => {
    const balanceProbe = `0x73${f.accounts[8]!.slice(2)}3160005260206000f3`; // PUSH20 addr BALANCE MSTORE RETURN 32
    const out = await rpcResult(f.table, 'eth_call', [{ to: f.accounts[9] }, 'latest', { [f.accounts[9]]: { code: balanceProbe }, [f.accounts[8]]: { balance: '0x2a' } }]);
    expect(out).toBe(word(42));
    const stateDiff = { [f.counter]: { stateDiff: { '0x0': word(7) } } };
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.counter, data: COUNTER_ABI.count }, 'latest', stateDiff])).toBe(word(7));
    const state = { [f.counter]: { state: { [word(1)]: word(5) } } };
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.counter, data: COUNTER_ABI.count }, 'latest', state])).toBe(word(0));
    const code = { [f.accounts[7]]: { code: COUNTER.deployedBytecode, stateDiff: { '0x0': word(41) } } };
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.accounts[7], data: COUNTER_ABI.increment }, 'latest', code])).toBe(word(42));
    const nonceProbe = { [f.accounts[7]]: { nonce: '0x9' } };
    expect(await rpcResult(f.table, 'eth_call', [{ from: f.accounts[7], to: f.counter, data: COUNTER_ABI.count }, 'latest', nonceProbe])).toBe(word(2));
    expect(await rpc(f.table, 'eth_call', [{ to: f.counter }, 'latest', { [f.counter]: { state: {}, stateDiff: {} } }])).toMatchObject({
      error: { code: -32602, message: expect.stringContaining("has both 'state' and 'stateDiff'") },
    });
    // Nothing leaked into the chain.
    expect(await rpcResult(f.table, 'eth_getCode', [f.accounts[7], 'latest'])).toBe('0x');
    expect(await rpcResult(f.table, 'eth_call', [{ to: f.counter, data: COUNTER_ABI.count }])).toBe(word(2));
  });

  it('behavior: estimates the exact gas that makes the call succeed', async () => {
    const estimate = BigInt(await rpcResult<string>(f.table, 'eth_estimateGas', [{ from: f.accounts[4], to: f.counter, data: COUNTER_ABI.increment }]));
    const atEstimate = await rpc(f.table, 'eth_call', [{ from: f.accounts[4], to: f.counter, data: COUNTER_ABI.increment, gas: `0x${estimate.toString(16)}` }]);
    const below = await rpc(f.table, 'eth_call', [{ from: f.accounts[4], to: f.counter, data: COUNTER_ABI.increment, gas: `0x${(estimate - 1n).toString(16)}` }]);
    expect(atEstimate).toEqual({ result: word(3) });
    expect(below).toMatchObject({ error: { code: -32000 } });
    expect(await rpcResult(f.table, 'eth_estimateGas', [{ from: f.accounts[4], to: f.accounts[5], value: '0x1' }])).toBe('0x5208');
    expect(await rpc(f.table, 'eth_estimateGas', [{ from: f.accounts[4], to: f.accounts[5], value: '0x1', gasPrice: '0x1', gas: '0x5208' }, 'latest', { [f.accounts[4]]: { balance: '0x0' } }])).toMatchObject({
      error: { code: -32000, message: 'insufficient funds for transfer' },
    });
  });

  it('behavior: a transfer to a precompile with no data estimates what the precompile charges on top of 21,000', async () => {
    // Precompiles have no code, but run: ecrecover charges 3,000 on any input, identity 15, sha256 60.
    const ecrecover = '0x0000000000000000000000000000000000000001';
    const estimate = await rpcResult<string>(f.table, 'eth_estimateGas', [{ from: f.accounts[4], to: ecrecover, value: '0x1' }]);
    expect(estimate).toBe(`0x${(21_000 + 3_000).toString(16)}`);
    expect(await rpcResult(f.table, 'eth_estimateGas', [{ from: f.accounts[4], to: '0x0000000000000000000000000000000000000004' }])).toBe(`0x${(21_000 + 15).toString(16)}`);
    expect(await rpcResult(f.table, 'eth_estimateGas', [{ from: f.accounts[4], to: '0x0000000000000000000000000000000000000002' }])).toBe(`0x${(21_000 + 60).toString(16)}`);
    // The estimate is enough, one less is not.
    expect(await rpc(f.table, 'eth_call', [{ from: f.accounts[4], to: ecrecover, value: '0x1', gas: estimate }])).toEqual({ result: '0x' });
    expect(await rpc(f.table, 'eth_call', [{ from: f.accounts[4], to: ecrecover, value: '0x1', gas: `0x${(21_000 + 2_999).toString(16)}` }])).toMatchObject({ error: { code: -32000 } });
  });

  it("error: a call straight to a precompile that fails answers the precompile's error as geth does, not a revert", async () => {
    // ecMul (0x07) of the point (1, 1), which is not on the curve (y² = x³ + 3), by 1.
    const word = (n: number) => n.toString(16).padStart(64, '0');
    const call = { from: f.accounts[4], to: '0x0000000000000000000000000000000000000007', data: `0x${word(1)}${word(1)}${word(1)}` };
    for (const method of ['eth_call', 'eth_estimateGas']) {
      expect(await rpc(f.table, method, [call])).toMatchObject({ error: { code: -32000, message: 'bn256: malformed point' } });
    }
    // A point on the curve, (1, 2), multiplies.
    expect(await rpc(f.table, 'eth_call', [{ ...call, data: `0x${word(1)}${word(2)}${word(1)}` }])).toEqual({ result: `0x${word(1)}${word(2)}` });
  });
});
