// Differential test of translation (issue 13 item 1) against the real anvil binary: the TraceProbe
// scenarios go to anvil and to the embedded chain (testing/traceAnvilPair.ts); anvil's debug_*
// tracer output translated into Parity form must equal the embedded engine's own trace_* answers,
// and anvil's trace_transaction translated into callTracer/flatCallTracer the embedded engine's
// debug_traceTransaction, field by field. Each normalisation names its convention in
// docs/trace-conventions.md and checks its premise; a refusal must be a TranslationGapError whose
// missing part the embedded answer shows was really there.
import { type Hex, encodeFunctionData, getContractAddress, parseTransaction } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { FEES, TRACE_TOKEN } from '../../engine/trace/testing/traceScenarios.js';
import { bytesToHex } from '../../rpc/hex.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, TranslationGapError } from '../../rpc/errors.js';
import { rpc } from '../embedded/testing/chainRpc.js';
import { DIFFERENCES, type Entry, type Obj } from '../embedded/testing/traceDifferences.js';
import { type Json, type TraceAnvilPair, startTraceAnvilPair } from '../embedded/testing/traceAnvilPair.js';
import { type Upstream, pickTranslation, translations } from './index.js';

/** docs/trace-conventions.md, "Translation": the texts geth words differently where Parity says `Out of gas`. */
const GETH_OUT_OF_GAS_TEXTS = new Set(['out of gas', 'out of gas: not enough gas for reentrancy sentry', 'contract creation code storage out of gas', 'max code size exceeded', 'contract address collision', 'max initcode size exceeded', 'nonce uint64 overflow']);

function translation(method: string, params: unknown[]) {
  // The router's view of anvil 1.7.1 (/work/shared/peers/anvil-responses/INDEX.md): debug_* with
  // callTracer and prestateTracer, trace_transaction/trace_block/trace_replayBlockTransactions.
  const anvilHas = new Set(['debug_traceTransaction', 'debug_traceCall', 'debug_traceBlockByHash', 'trace_transaction', 'trace_block', 'trace_replayBlockTransactions']);
  const t = pickTranslation(method, params, (need) => need.method.startsWith('eth_') || (anvilHas.has(need.method) && need.tracer !== 'flatCallTracer'));
  if (!t) throw new Error(`no translation of ${method} fits anvil`);
  return t;
}

describe('translation: anvil output through the record equals the embedded engine', () => {
  let pair: TraceAnvilPair;
  let upstream: Upstream;
  /** Our answer for a method; throws on an error answer. */
  let ours: (method: string, params: unknown[]) => Promise<Json>;
  /** Scenario name → [block number, anvil's block hash, our block hash]. */
  const blocks = new Map<string, { number: string; theirHash: string; ourHash: string }>();

  beforeAll(async () => {
    pair = await startTraceAnvilPair(['--hardfork', 'prague']);
    upstream = async (method, params) => {
      const answer = await pair.anvilRpc(method, params);
      if ('error' in answer) throw new RpcError(answer.error.message, { code: answer.error.code });
      return answer.result;
    };
    ours = async (method, params) => {
      const answer = await rpc(pair.table, method, params);
      if ('error' in answer) throw new Error(`${method}: ${answer.error.message}`);
      return answer.result as Json;
    };
    await addRefundScenarios();
    for (const s of pair.scenarios) {
      const hash = pair.hashes.get(s.name)!;
      const [theirs, mine] = await pair.both('eth_getTransactionReceipt', [hash]);
      expect((theirs as Obj).blockNumber).toBe((mine as Obj).blockNumber);
      blocks.set(s.name, { number: (theirs as Obj).blockNumber as string, theirHash: (theirs as Obj).blockHash as string, ourHash: (mine as Obj).blockHash as string });
    }
  }, 60_000);
  /**
   * Two token transfers that earn a gas refund (EIP-3529), sent to both chains and added to the
   * scenarios: one to the sender itself (the balance slot is written and restored) and one of the
   * whole balance (the slot is cleared). geth's callTracer hides the refund; the translation reads it.
   */
  async function addRefundScenarios(): Promise<void> {
    const deployer = privateKeyToAccount(bytesToHex(pair.temp.chain.accounts[0]!.privateKey));
    const token = getContractAddress({ from: deployer.address, nonce: 0n });
    const balance = BigInt((await ours('eth_call', [{ to: token, data: encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'balanceOf', args: [deployer.address] }) }, 'latest'])) as string);
    let nonce = Number(BigInt((await ours('eth_getTransactionCount', [deployer.address, 'latest'])) as string));
    const transfer = async (name: string, to: Hex, value: bigint): Promise<void> => {
      const data = encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'transfer', args: [to, value] });
      const raw = await deployer.signTransaction({ type: 'eip1559', chainId: Number(pair.temp.chain.chainId), nonce: nonce++, to: token, data, gas: 200_000n, ...FEES });
      const [theirs, mine] = await pair.both('eth_sendRawTransaction', [raw]);
      expect(theirs).toBe(mine);
      pair.scenarios.push({ name, raw });
      pair.hashes.set(name, mine as string);
    };
    await transfer('refundRestore', deployer.address, 1n);
    await transfer('refundClear', '0x00000000000000000000000000000000000000bb', balance);
  }

  afterAll(async () => {
    await pair?.stop();
  });

  /** DIFFERENCES.blockHash: each chain seals its own header; anvil's hash must be anvil's block's. */
  function withOurBlockHash(entries: Entry[], block: { theirHash: string; ourHash: string }): Entry[] {
    return entries.map((e) => {
      expect(e.blockHash, DIFFERENCES.blockHash).toBe(block.theirHash);
      return { ...e, blockHash: block.ourHash };
    });
  }

  /** A reverted create in our entries: the `createAddress` gap's premise (geth's callTracer leaves a failed create's address out). */
  const hasRevertedCreate = (entries: Json): boolean =>
    (entries as Entry[]).some((e) => e.type === 'create' && e.error === 'Reverted' && (e.result as Obj | null)?.address !== undefined);

  async function refusal(run: Promise<unknown>): Promise<TranslationGapError> {
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TranslationGapError);
    return error as TranslationGapError;
  }

  it('behavior: trace_transaction and trace_get from debug_traceTransaction equal ours for every scenario', async () => {
    let equal = 0;
    for (const s of pair.scenarios) {
      const hash = pair.hashes.get(s.name)!;
      const mine = await ours('trace_transaction', [hash]);
      const run = translation('trace_transaction', [hash]).run([hash], upstream);
      if (hasRevertedCreate(mine)) {
        expect((await refusal(run)).missing, s.name).toBe('createAddress');
        continue;
      }
      const theirs = withOurBlockHash((await run) as Entry[], blocks.get(s.name)!);
      expect({ scenario: s.name, trace: theirs }).toEqual({ scenario: s.name, trace: mine });
      equal++;
      for (const e of (mine as Entry[]).slice(0, 3)) {
        const indices = e.traceAddress.map((i) => `0x${i.toString(16)}`);
        const got = (await translation('trace_get', [hash, indices]).run([hash, indices], upstream)) as Entry;
        expect({ scenario: s.name, entry: { ...got, blockHash: e.blockHash } }).toEqual({ scenario: s.name, entry: await ours('trace_get', [hash, indices]) });
      }
    }
    expect(await translation('trace_get', []).run([pair.hashes.get('nested')!, ['0x63']], upstream)).toBeNull();
    expect(equal).toBeGreaterThanOrEqual(pair.scenarios.length - 1);
  }, 60_000);

  it('behavior: trace_block from debug_traceBlockByHash equals ours for every scenario block', async () => {
    for (const s of pair.scenarios) {
      const block = blocks.get(s.name)!;
      const mine = await ours('trace_block', [block.number]);
      const run = translation('trace_block', [block.number]).run([block.number], upstream);
      if (hasRevertedCreate(mine)) {
        expect((await refusal(run)).missing).toBe('createAddress');
        continue;
      }
      expect({ scenario: s.name, trace: withOurBlockHash((await run) as Entry[], block) }).toEqual({ scenario: s.name, trace: mine });
    }
    expect(await translation('trace_block', ['0x0']).run(['0x0'], upstream)).toEqual(await ours('trace_block', ['0x0']));
  }, 60_000);

  it('behavior: trace_filter over the scenario blocks equals ours, by address and with after/count', async () => {
    const hashesByNumber = new Map([...blocks.values()].map((b) => [Number(b.number), b]));
    // The reverted create (failCreate) is refused; filter the blocks after it.
    const failBlock = BigInt(blocks.get('failCreate')!.number);
    const probe = ((await ours('eth_getTransactionReceipt', [pair.hashes.get('deployProbe')!])) as Obj).contractAddress as string;
    for (const filter of [
      { fromBlock: `0x${(failBlock + 1n).toString(16)}` },
      { fromBlock: `0x${(failBlock + 1n).toString(16)}`, toAddress: [probe] },
      { fromBlock: `0x${(failBlock + 1n).toString(16)}`, fromAddress: [probe], after: 2, count: '0x3' },
      { fromBlock: '0x1', toBlock: `0x${(failBlock - 1n).toString(16)}`, toAddress: ['0x00000000000000000000000000000000000000aa'] },
    ]) {
      const mine = (await ours('trace_filter', [filter])) as Entry[];
      const theirs = ((await translation('trace_filter', [filter]).run([filter], upstream)) as Entry[]).map((e) => withOurBlockHash([e], hashesByNumber.get(e.blockNumber as number)!)[0]!);
      expect(mine.length, JSON.stringify(filter)).toBeGreaterThan(0);
      expect({ filter, entries: theirs }).toEqual({ filter, entries: mine });
    }
    const failing = [{ fromBlock: `0x${failBlock.toString(16)}`, toBlock: `0x${failBlock.toString(16)}` }];
    await expect(translation('trace_filter', failing).run(failing, upstream)).rejects.toMatchObject({ missing: 'createAddress' });
  }, 60_000);

  it('behavior: trace_replayTransaction and trace_replayBlockTransactions with trace and stateDiff equal ours', async () => {
    for (const s of pair.scenarios) {
      const hash = pair.hashes.get(s.name)!;
      const block = blocks.get(s.name)!;
      for (const types of [['stateDiff'], ['trace', 'stateDiff']]) {
        const mine = await ours('trace_replayTransaction', [hash, types]);
        const run = translation('trace_replayTransaction', [hash, types]).run([hash, types], upstream);
        const mineBlock = await ours('trace_replayBlockTransactions', [block.number, types]);
        const runBlock = translation('trace_replayBlockTransactions', [block.number, types]).run([block.number, types], upstream);
        if (types.includes('trace') && hasRevertedCreate((mine as Obj).trace!)) {
          expect((await refusal(run)).missing).toBe('createAddress');
          expect((await refusal(runBlock)).missing).toBe('createAddress');
          continue;
        }
        expect({ scenario: s.name, types, result: await run }).toEqual({ scenario: s.name, types, result: mine });
        expect({ scenario: s.name, types, result: await runBlock }).toEqual({ scenario: s.name, types, result: mineBlock });
      }
    }
  }, 120_000);

  it('behavior: trace_call from debug_traceCall equals ours for the scenarios as calls at the head', async () => {
    const token = getContractAddress({ from: ((await ours('eth_accounts', [])) as Hex[])[0]!, nonce: 0n });
    // A call that earns a refund at the head: 0x…bb (which holds the tokens now) pays itself.
    const selfPay = encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'transfer', args: ['0x00000000000000000000000000000000000000bb', 1n] });
    const refundCall = { from: '0x00000000000000000000000000000000000000bb', to: token, data: selfPay };
    const refund = await translation('trace_call', [refundCall, ['trace'], 'latest']).run([refundCall, ['trace'], 'latest'], upstream);
    expect(refund).toEqual(await ours('trace_call', [refundCall, ['trace'], 'latest']));
    for (const s of pair.scenarios.filter((x) => !['deployToken', 'deployProbe', 'failCreate'].includes(x.name))) {
      const tx = parseTransaction(s.raw as Hex);
      const call = { from: ((await ours('eth_accounts', [])) as string[])[0], to: tx.to, data: tx.data ?? '0x', value: `0x${(tx.value ?? 0n).toString(16)}`, gas: `0x${tx.gas!.toString(16)}` };
      for (const types of [['trace'], ['trace', 'stateDiff']]) {
        const params = [call, types, 'latest'];
        const mine = await ours('trace_call', params);
        expect({ scenario: s.name, types, result: await translation('trace_call', params).run(params, upstream) }).toEqual({ scenario: s.name, types, result: mine });
      }
    }
  }, 120_000);

  it('behavior: the refund hidden by callTracer comes from a re-execution on the prestate, else the JavaScript tracer, and without either the answer is refused', async () => {
    for (const name of ['refundRestore', 'refundClear']) {
      const hash = pair.hashes.get(name)!;
      const [root] = (await ours('trace_transaction', [hash])) as Entry[];
      const receipt = (await ours('eth_getTransactionReceipt', [hash])) as Obj;
      const tx = (await ours('eth_getTransactionByHash', [hash])) as Obj;
      // The premise: Parity's root gasUsed (before the refund) is above the receipt's less intrinsic gas.
      const intrinsic = BigInt(tx.gas as string) - BigInt(root!.action.gas as string);
      expect(BigInt((root!.result as Obj).gasUsed as string), name).toBeGreaterThan(BigInt(receipt.gasUsed as string) - intrinsic);
      const expected = await ours('trace_transaction', [hash]);
      const block = blocks.get(name)!;
      const translated = async (via: Upstream) => withOurBlockHash((await translation('trace_transaction', [hash]).run([hash], via)) as Entry[], block);
      // A node without JavaScript tracers (geth with them disabled, the embedded engine): the
      // engine re-runs the transaction on the node's prestate and its receipt figure matches.
      let jsAsked = 0;
      const noJs: Upstream = (method, params) => {
        const options = params.at(-1) as { tracer?: string } | undefined;
        if (options?.tracer?.startsWith('{')) {
          jsAsked++;
          return Promise.reject(new RpcError('unsupported tracer type', { code: -32602 }));
        }
        return upstream(method, params);
      };
      expect(await translated(noJs), name).toEqual(expected);
      expect(jsAsked).toBe(0);
      // A prestate that does not tell the whole story (every slot read as zero, so the transfer fails): the re-execution's
      // outcome and receipt figure differ, so it is not used; the JavaScript tracer answers, equal again.
      const tamper = (via: Upstream): Upstream => async (method, params) => {
        const answer = await via(method, params);
        const options = params.at(-1) as { tracer?: string; tracerConfig?: unknown } | undefined;
        if (method !== 'debug_traceTransaction' || options?.tracer !== 'prestateTracer' || options.tracerConfig) return answer;
        const copy = JSON.parse(JSON.stringify(answer)) as Record<string, { storage?: Record<string, string> }>;
        for (const account of Object.values(copy)) for (const slot of Object.keys(account.storage ?? {})) account.storage![slot] = `0x${'0'.repeat(64)}`;
        return copy;
      };
      expect(await translated(tamper(upstream)), name).toEqual(expected);
      // Neither: refused, never a guess.
      const gap = await refusal(translation('trace_transaction', [hash]).run([hash], tamper(noJs)));
      expect(gap.missing).toBe('refund');
      expect(gap.message).toContain('trace_transaction');
      // stateDiff alone needs no refund.
      const diff = [hash, ['stateDiff']];
      expect(await translation('trace_replayTransaction', diff).run(diff, noJs)).toEqual(await ours('trace_replayTransaction', diff));
    }
  }, 60_000);

  it('behavior: trace_call with state overrides and trace_callMany (each call on the state the earlier ones left) equal ours', async () => {
    const token = getContractAddress({ from: ((await ours('eth_accounts', [])) as Hex[])[0]!, nonce: 0n });
    const pay = (to: Hex, value: bigint): Hex => encodeFunctionData({ abi: TRACE_TOKEN.abi, functionName: 'transfer', args: [to, value] });
    const BB = '0x00000000000000000000000000000000000000bb';
    const CC = '0x00000000000000000000000000000000000000cc';
    const DD = '0x00000000000000000000000000000000000000dd';
    // A fresh sender whose balance exists only as an override.
    const overridden = [{ from: CC, to: DD, value: '0xde0b6b3a7640000' }, ['trace', 'stateDiff'], 'latest', { [CC]: { balance: '0x1bc16d674ec80000' } }];
    expect(await translation('trace_call', overridden).run(overridden, upstream)).toEqual(await ours('trace_call', overridden));
    // 0x…bb pays 0x…cc 10 tokens; 0x…cc pays 0x…dd 4 of them, then fails to pay 7 (6 left); then a plain call.
    const many = [
      [
        [{ from: BB, to: token, data: pay(CC, 10n) }, ['trace', 'stateDiff']],
        [{ from: CC, to: token, data: pay(DD, 4n) }, ['trace']],
        [{ from: CC, to: token, data: pay(DD, 7n) }, ['stateDiff']],
        [{ from: DD, to: CC, value: '0x0' }, ['trace', 'stateDiff']],
      ],
      'latest',
    ];
    const mine = (await ours('trace_callMany', many)) as Obj[];
    // The third call fails on the balance the first two left (10 − 4 < 7): the chain of state is real.
    expect(JSON.stringify(mine[1]!.trace)).not.toContain('Reverted');
    expect(mine[2]!.stateDiff).toEqual(expect.not.objectContaining({ [token.toLowerCase()]: expect.anything() }));
    expect(await translation('trace_callMany', many).run(many, upstream)).toEqual(mine);
  }, 60_000);

  it("behavior: debug_traceTransaction callTracer and flatCallTracer from anvil's trace_transaction equal ours", async () => {
    let equal = 0;
    for (const s of pair.scenarios) {
      const hash = pair.hashes.get(s.name)!;
      for (const options of [{ tracer: 'callTracer' }, { tracer: 'flatCallTracer' }, { tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } }, undefined]) {
        const params = options ? [hash, options] : [hash];
        const mine = await ours('debug_traceTransaction', params);
        const run = translation('debug_traceTransaction', params).run(params, upstream);
        const gethTexts = JSON.stringify(await ours('debug_traceTransaction', [hash, { tracer: 'flatCallTracer' }]));
        const coarse = [...GETH_OUT_OF_GAS_TEXTS].some((t) => gethTexts.includes(`"error":"${t}"`));
        if (coarse && !(options?.tracerConfig as Obj | undefined)?.convertParityErrors) {
          // Parity's `Out of gas` names several geth errors (docs/trace-conventions.md, "Translation").
          expect((await refusal(run)).missing, s.name).toBe('gethErrorText');
          continue;
        }
        const theirs = (await run) as Json;
        const flat = Array.isArray(theirs) ? withOurBlockHash(theirs as Entry[], blocks.get(s.name)!) : theirs;
        expect({ scenario: s.name, options, trace: flat }).toEqual({ scenario: s.name, options, trace: mine });
        equal++;
      }
    }
    expect(equal).toBeGreaterThanOrEqual(pair.scenarios.length * 3);
  }, 120_000);

  it("behavior: debug_traceBlockByNumber and debug_traceBlockByHash (callTracer, flatCallTracer) from anvil's trace_block equal ours", async () => {
    let equal = 0;
    for (const s of pair.scenarios) {
      const block = blocks.get(s.name)!;
      for (const options of [{ tracer: 'callTracer' }, { tracer: 'flatCallTracer' }]) {
        const mine = await ours('debug_traceBlockByNumber', [block.number, options]);
        const byHash = [block.theirHash, options];
        const run = translation('debug_traceBlockByHash', byHash).run(byHash, upstream);
        if ([...GETH_OUT_OF_GAS_TEXTS].some((t) => JSON.stringify(mine).includes(`"error":"${t}"`))) {
          expect((await refusal(run)).missing, s.name).toBe('gethErrorText');
          continue;
        }
        const theirs = ((await run) as { txHash: string; result: Json }[]).map(({ txHash, result }) => ({
          txHash,
          result: Array.isArray(result) ? withOurBlockHash(result as Entry[], block) : result,
        }));
        expect({ scenario: s.name, options, trace: theirs }).toEqual({ scenario: s.name, options, trace: mine });
        const byNumber = [block.number, options];
        expect((await translation('debug_traceBlockByNumber', byNumber).run(byNumber, upstream)) as Json).toEqual(await run);
        equal++;
      }
    }
    expect(equal).toBeGreaterThanOrEqual(pair.scenarios.length * 2 - 4);
  }, 60_000);

  /**
   * The `logs` gap's premise (docs/trace-conventions.md, "Translation"): some shown log sits in a
   * frame that made calls (its position is unknown) or its address is the context of two frames
   * that did not fail (its frame is unknown).
   */
  function logsUnplaceable(root: Obj): boolean {
    const contexts = new Map<string, number>();
    let unplaceable = false;
    const walk = (frame: Obj, context: string): void => {
      if (frame.error !== undefined) return;
      contexts.set(context, (contexts.get(context) ?? 0) + 1);
      const calls = (frame.calls as Obj[] | undefined) ?? [];
      if (frame.logs && calls.length > 0) unplaceable = true;
      for (const c of calls) if (c.type !== 'SELFDESTRUCT') walk(c, ['DELEGATECALL', 'CALLCODE'].includes(c.type as string) ? context : (c.to as string));
    };
    walk(root, root.to as string);
    const logAddresses = JSON.stringify(root).match(/"address":"0x[0-9a-f]{40}"/g) ?? [];
    return unplaceable || logAddresses.some((a) => (contexts.get(a.slice(11, -1)) ?? 0) > 1);
  }

  it('behavior: callTracer withLog from trace_transaction places the receipt\'s logs where certain, and is refused otherwise', async () => {
    let placed = 0;
    for (const s of pair.scenarios) {
      const hash = pair.hashes.get(s.name)!;
      const withLog = [hash, { tracer: 'callTracer', tracerConfig: { withLog: true } }];
      const mine = (await ours('debug_traceTransaction', withLog)) as Obj;
      const run = translation('debug_traceTransaction', withLog).run(withLog, upstream);
      if ([...GETH_OUT_OF_GAS_TEXTS].some((t) => JSON.stringify(mine).includes(`"error":"${t}"`))) {
        await refusal(run);
        continue;
      }
      if (logsUnplaceable(mine)) {
        const gap = await refusal(run);
        expect(gap.missing, s.name).toBe('logs');
        expect(gap.code).toBe(-32603);
        continue;
      }
      expect({ scenario: s.name, trace: await run }).toEqual({ scenario: s.name, trace: mine });
      if (JSON.stringify(mine).includes(`"logs"`)) placed++;
    }
    expect(placed).toBeGreaterThan(0);
  }, 60_000);

  it('error: what the upstream cannot show is refused with the part named', async () => {
    const hash = pair.hashes.get('nested')!;
    // vmTrace needs every opcode.
    const vm = [hash, ['vmTrace']];
    expect(translations.get('trace_replayTransaction')!.every((t) => !t.accepts(vm))).toBe(true);
    expect((await refusal(translations.get('trace_replayTransaction')![0]!.run(vm, upstream))).missing).toBe('vmTrace');
    // A tracer no translation renders is not accepted, so a router never picks one for it.
    expect(pickTranslation('debug_traceTransaction', [hash, { tracer: 'prestateTracer' }], () => true)).toBeUndefined();
    // An unknown transaction is the embedded engine's not-found error.
    const unknown = `0x${'ab'.repeat(32)}`;
    await expect(translation('trace_transaction', [unknown]).run([unknown], upstream)).rejects.toMatchObject({ code: -32001 });
  }, 30_000);
});
