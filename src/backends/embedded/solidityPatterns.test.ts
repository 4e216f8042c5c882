// Every trace format of transactions of ordinary Solidity contracts (fixtures/contracts/Patterns.sol:
// a vault with a transient reentrancy lock, a re-entering attacker, a CREATE2 factory, an EIP-1967
// proxy bubbling reverts and panics, precompiles, memory and storage growth, refunds, large logs and
// reverts, deep recursion, a self-destructing constructor) against the real anvil
// binary, on Prague and on Osaka: receipts, trace_transaction, callTracer with logs, prestateTracer
// (plain and diffMode) and trace_replayTransaction of each mined transaction, after the documented
// differences (testing/traceDifferences.ts), and debug_traceCall's callTracer and struct logs. EIP-7702
// delegations (set, used, cleared) agree too, except for the three places geth and anvil differ,
// where our answer is geth's (docs/trace-conventions.md).
import { readFileSync } from 'node:fs';
import { type Abi, type Hex, encodeDeployData, encodeFunctionData, getContractAddress, hexToBytes, keccak256, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FuzzPair, type SentTx, compareTransaction, jsonDiff, mismatchText, startFuzzPair } from './testing/fuzzTraceRunner.js';
import type { Json as AnswerJson } from './testing/traceAnvilPair.js';
import { tracedCallAsGeth } from './testing/traceDifferences.js';

const contract = (name: string) => JSON.parse(readFileSync(new URL(`../../../fixtures/contracts/build/${name}.json`, import.meta.url), 'utf8')) as { abi: Abi; bytecode: Hex };
const NAMES = ['Vault', 'Attacker', 'Factory', 'Impl', 'Proxy', 'Crypto', 'Burner', 'Misc', 'SelfKill'] as const;
const build = Object.fromEntries(NAMES.map((n) => [n, contract(n)])) as Record<(typeof NAMES)[number], { abi: Abi; bytecode: Hex }>;

type Json = Record<string, unknown>;

describe.each(['prague', 'osaka'])('Solidity contracts against anvil on %s', (hardfork) => {
  let pair: FuzzPair;
  const sent: SentTx[] = [];
  const delegations: { set?: SentTx; cleared?: SentTx; used: SentTx[]; authority?: Hex } = { used: [] };
  const at: Partial<Record<(typeof NAMES)[number], Hex>> = {};

  beforeAll(async () => {
    pair = await startFuzzPair(hardfork);
    const signer = pair.signers[0]!;
    let nonce = Number(((await pair.ourRpc('eth_getTransactionCount', [signer.address, 'latest'])) as { result: string }).result);
    const send = async (label: string, fields: { to?: Hex; data: Hex; value?: bigint; gas?: bigint; authorizationList?: Awaited<ReturnType<typeof signer.signAuthorization>>[] }): Promise<void> => {
      const common = { chainId: 31337, nonce, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1n, gas: fields.gas ?? 3_000_000n, value: fields.value ?? 0n, to: fields.to, data: fields.data };
      const raw = fields.authorizationList
        ? await signer.signTransaction({ ...common, type: 'eip7702', to: fields.to!, authorizationList: fields.authorizationList })
        : await signer.signTransaction({ ...common, type: 'eip1559' });
      const [theirs, ours] = [await pair.anvilRpc('eth_sendRawTransaction', [raw]), await pair.ourRpc('eth_sendRawTransaction', [raw])];
      expect(ours, label).toEqual(theirs);
      nonce++;
      sent.push({ label, hash: (ours as { result: string }).result });
    };
    const mine = async (): Promise<void> => {
      await pair.anvilRpc('evm_mine', []);
      await pair.ourRpc('evm_mine', []);
    };
    const deploy = async (name: (typeof NAMES)[number], args: unknown[] = [], value = 0n): Promise<Hex> => {
      at[name] = getContractAddress({ from: signer.address, nonce: BigInt(nonce) });
      await send(`deploy ${name}`, { data: encodeDeployData({ abi: build[name].abi, bytecode: build[name].bytecode, args }), value });
      return at[name];
    };
    const call = (name: (typeof NAMES)[number], fn: string, args: unknown[] = [], value = 0n, options: { gas?: bigint; to?: Hex } = {}) =>
      send(`${name}.${fn}(${args.map(String).join(', ')})`, { to: options.to ?? at[name]!, data: encodeFunctionData({ abi: build[name].abi, functionName: fn, args }), value, gas: options.gas });

    const vault = await deploy('Vault');
    await deploy('Attacker', [vault], 10n ** 18n);
    await deploy('Factory');
    const impl = await deploy('Impl');
    await deploy('Proxy', [impl]);
    await deploy('Crypto');
    await deploy('Burner');
    await deploy('Misc');
    await deploy('SelfKill', [], 5n); // destroys itself in its constructor
    await mine();
    await call('Misc', 'fill', [40n]);
    await call('Misc', 'clear'); // 40 cleared slots: the refund is capped at a fifth of the gas used
    await call('Misc', 'logs', [100n]);
    await call('Misc', 'staticWrite'); // SSTORE under STATICCALL
    await call('Misc', 'sendTo', [['0x00000000000000000000000000000000000000aa', '0x0000000000000000000000000000000000000004', vault]], 9n); // a new account, a precompile, a contract without receive()
    await call('Misc', 'bigRevert', [5000n]);
    await call('Misc', 'transientRevert'); // TSTORE undone by the reverted frame
    await call('Misc', 'recurse', [60n]);
    await call('Misc', 'recurse', [2000n], 0n, { gas: 16_000_000n }); // until the 63/64 rule starves it (under Osaka's 2^24 cap)
    await mine();
    await call('Vault', 'deposit', [keccak256(toHex('tag'))], 10n ** 16n);
    await call('Vault', 'withdraw', [10n ** 15n]);
    await call('Vault', 'withdraw', [10n ** 18n]); // Insufficient(have, want)
    await call('Attacker', 'attack', [], 10n ** 15n); // re-entry caught: Locked() kept as bytes
    await call('Attacker', 'attackUncaught', [], 10n ** 15n); // Locked() bubbles to the top
    await mine();
    await call('Factory', 'make', [vault, 7n], 5n);
    await call('Factory', 'makeTwice', [8n]); // the second CREATE2 collides, caught
    await call('Factory', 'makeAndKill', [9n], 3n); // created and destroyed in one transaction
    await call('Factory', 'make', [vault, 7n]); // collides with the first, uncaught
    await mine();
    for (const code of [1n, 2n, 3n, 4n, 5n]) await call('Impl', 'fail', [code], 0n, { to: at.Proxy }); // reason, panics 0x32, 0x12, 0x01, custom error
    await call('Impl', 'set', [42n], 0n, { to: at.Proxy });
    await mine();
    await call('Crypto', 'run', [toHex('hello world, a blob of bytes that is longer than thirty-two'), keccak256(toHex('msg')), 27, `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`]);
    await call('Crypto', 'copy', [toHex('abcdefghijklmnopqrstuvwxyz0123456789'), 40n]);
    await call('Burner', 'burn', [30n]);
    await call('Burner', 'callWithGas', [at.Burner, 60_000n, 10n]); // the inner call runs out of gas
    await call('Burner', 'burn', [2000n], 0n, { gas: 400_000n }); // out of gas at the top
    await call('Burner', 'overflow', [10n]); // panic 0x11
    await mine();
    // EIP-7702: an account delegates to Impl in a transaction that calls it, is used as Impl (directly
    // and from a contract), then clears its delegation.
    const authority = pair.signers[1]!;
    const authorityNonce = Number(((await pair.ourRpc('eth_getTransactionCount', [authority.address, 'latest'])) as { result: string }).result);
    delegations.authority = authority.address.toLowerCase() as Hex;
    const setData = encodeFunctionData({ abi: build.Impl.abi, functionName: 'set', args: [5n] });
    await send('7702: delegate to Impl and call set(5)', { to: authority.address, data: setData, authorizationList: [await authority.signAuthorization({ chainId: 31337, nonce: authorityNonce, contractAddress: at.Impl! })] });
    delegations.set = sent.at(-1);
    await mine();
    await call('Impl', 'fail', [1n], 0n, { to: authority.address });
    await call('Impl', 'set', [9n], 0n, { to: authority.address });
    await call('Burner', 'callWithGas', [authority.address, 100_000n, 3n]); // Impl has no burn(): reverts inside
    delegations.used.push(...sent.slice(-3));
    await send('7702: clear the delegation', { to: authority.address, data: '0x', authorizationList: [await authority.signAuthorization({ chainId: 31337, nonce: authorityNonce + 1, contractAddress: '0x0000000000000000000000000000000000000000' })] });
    delegations.cleared = sent.at(-1);
    await mine();
  }, 120_000);
  afterAll(async () => {
    await pair?.stop();
  });

  it('behavior: every mined transaction\'s receipt and trace formats agree with anvil\'s', async () => {
    expect(sent).toHaveLength(44);
    const differences: string[] = [];
    for (const tx of sent) {
      if (tx === delegations.set || tx === delegations.cleared) continue;
      const mismatches = await compareTransaction(pair, tx);
      if (mismatches.length > 0) differences.push(mismatchText(mismatches));
    }
    expect(differences).toEqual([]);
  }, 60_000);

  it('behavior: EIP-7702 transactions that set and clear a delegation differ from anvil exactly where geth does (prestate, diffMode, stateDiff code)', async () => {
    const authority = delegations.authority!;
    const impl = at.Impl!.toLowerCase();
    const designator = `0xef0100${impl.slice(2)}`;
    const both = async (method: string, params: unknown[]): Promise<[Json, Json]> => {
      const [theirs, ours] = [await pair.anvilRpc(method, params), await pair.ourRpc(method, params)];
      return [(theirs as { result: Json }).result, (ours as { result: Json }).result];
    };
    const checks = async (tx: SentTx) => (await compareTransaction(pair, tx)).map((m) => m.check).sort();
    // Setting it: geth looks up no delegation target (none is in force when the transaction starts); anvil does.
    const set = delegations.set!;
    expect(await checks(set)).toEqual(['prestateTracer', 'trace_replayTransaction']);
    const [theirPre, ourPre] = await both('debug_traceTransaction', [set.hash, { tracer: 'prestateTracer' }]);
    expect(Object.keys(theirPre)).toContain(impl);
    expect(Object.keys(ourPre)).not.toContain(impl);
    const stateDiffCode = async (tx: SentTx) => {
      const ours = (await pair.ourRpc('trace_replayTransaction', [tx.hash, ['stateDiff']])) as { result: { stateDiff: Record<string, Json> } };
      return ours.result.stateDiff[authority]!.code;
    };
    expect(await stateDiffCode(set)).toEqual({ '*': { from: '0x', to: designator } });
    // Clearing it: geth looks up the target in force when it starts, and shows the cleared code as 0x.
    const cleared = delegations.cleared!;
    expect(await checks(cleared)).toEqual(['prestateTracer (premise)', 'prestateTracer diffMode', 'trace_replayTransaction']);
    const [theirPre2, ourPre2] = await both('debug_traceTransaction', [cleared.hash, { tracer: 'prestateTracer' }]);
    expect(Object.keys(theirPre2)).not.toContain(impl);
    expect(Object.keys(ourPre2)).toContain(impl);
    const [theirDiff, ourDiff] = (await both('debug_traceTransaction', [cleared.hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])) as [{ post: Record<string, Json> }, { post: Record<string, Json> }];
    expect(theirDiff.post[authority]!.code).toBeUndefined();
    expect(ourDiff.post[authority]!.code).toBe('0x');
    expect(await stateDiffCode(cleared)).toEqual({ '*': { from: designator, to: '0x' } });
    // In between, the delegated account behaves as Impl: every format agrees.
    expect(delegations.used).toHaveLength(3);
  }, 60_000);

  it('behavior: debug_traceCall\'s callTracer and struct logs (memory, storage, return data) agree with anvil\'s', async () => {
    const from = pair.signers[0]!.address;
    const gas = 30_000_000n;
    const calls: [(typeof NAMES)[number], string, unknown[], Hex?][] = [
      ['Impl', 'fail', [2n], at.Proxy],
      ['Crypto', 'copy', [toHex('xyz'), 3n]],
      ['Vault', 'withdraw', [1n]],
      ['Attacker', 'attack', []],
    ];
    for (const [name, fn, args, to] of calls) {
      const data = encodeFunctionData({ abi: build[name].abi, functionName: fn, args });
      for (const options of [{ tracer: 'callTracer', tracerConfig: { withLog: true } }, { enableMemory: true, enableReturnData: true }]) {
        const params = [{ from, to: to ?? at[name], data, gas: `0x${gas.toString(16)}` }, 'latest', options];
        const [theirs, ours] = [await pair.anvilRpc('debug_traceCall', params), await pair.ourRpc('debug_traceCall', params)];
        expect('result' in ours, JSON.stringify(ours).slice(0, 300)).toBe(true);
        expect(jsonDiff(tracedCallAsGeth((theirs as { result: AnswerJson }).result, { data: hexToBytes(data), gas }), (ours as { result: Json }).result), `${name}.${fn} ${JSON.stringify(options)}`).toEqual([]);
      }
    }
  }, 60_000);
});
