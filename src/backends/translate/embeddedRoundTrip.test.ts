// Translation with the embedded engine itself as the upstream: its debug_* tracers translated into
// Parity form must give its own trace_* answers, and its trace_transaction / trace_replayTransaction
// translated into callTracer / flatCallTracer its own debug_traceTransaction, except where the
// source provably lacks the information (docs/trace-conventions.md, "Translation"): the embedded
// engine runs no JavaScript tracer, so a transaction that touched storage and succeeded has its
// refund only from a re-execution on its prestate (gasByReexecution.ts), else none; its Parity entries leave out nested zero-value calls into precompiles and calls
// that failed their pre-checks, which callTracer lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTempChain, type TempChain } from '../../engine/chain/testing/tempChain.js';
import { createTracer, type Tracer } from '../../engine/trace/createTracer.js';
import { buildTraceScenarios, type SignedScenario } from '../../engine/trace/testing/traceScenarios.js';
import { TranslationGapError, UpstreamTraceMalformedError } from '../../rpc/errors.js';
import { bytesToHex } from '../../rpc/hex.js';
import { privateKeyToAccount } from 'viem/accounts';
import { createDebugNamespace } from '../embedded/debugNamespace.js';
import { createEthNamespace } from '../embedded/ethNamespace.js';
import { createMethodTable, type MethodTable } from '../embedded/methodTable.js';
import { rpc } from '../embedded/testing/chainRpc.js';
import { createTraceNamespace } from '../embedded/traceNamespace.js';
import { type Upstream, translations } from './index.js';
import { isPrecompileAddress } from './precompiles.js';
import { hexToBytes } from '../../rpc/hex.js';

type Obj = { [key: string]: unknown };
const ZERO = `0x${'0'.repeat(64)}`;

describe('translation: the embedded engine as upstream gives back its own answers', () => {
  let temp: TempChain;
  let tracer: Tracer;
  let table: MethodTable;
  let scenarios: SignedScenario[];
  const hashes = new Map<string, string>();
  let upstream: Upstream;

  beforeAll(async () => {
    temp = await openTempChain({ clock: Date.now });
    tracer = createTracer({ chain: temp.chain });
    table = createMethodTable(createEthNamespace({ chain: temp.chain }), createDebugNamespace({ tracer }), createTraceNamespace({ tracer }));
    upstream = async (method, params) => {
      const answer = await rpc(table, method, params);
      if ('error' in answer) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      return answer.result;
    };
    const deployer = privateKeyToAccount(bytesToHex(temp.chain.accounts[0]!.privateKey));
    ({ scenarios } = await buildTraceScenarios(deployer, Number(temp.chain.chainId)));
    for (const s of scenarios) hashes.set(s.name, (await upstream('eth_sendRawTransaction', [s.raw])) as string);
  }, 60_000);
  afterAll(async () => {
    tracer?.close();
    await temp?.dispose();
  });

  /** The refund gap's premise: the transaction succeeded and its prestate lists a storage slot. */
  async function refundUnknowable(hash: string): Promise<boolean> {
    const receipt = (await upstream('eth_getTransactionReceipt', [hash])) as Obj;
    const prestate = (await upstream('debug_traceTransaction', [hash, { tracer: 'prestateTracer' }])) as Obj;
    return receipt.status === '0x1' && Object.values(prestate).some((a) => Object.keys(((a as Obj).storage as Obj | undefined) ?? {}).length > 0);
  }

  it('behavior: trace_transaction and trace_replayTransaction from debug_* equal its own, or name the refund gap', async () => {
    let equal = 0;
    let reexecuted = 0;
    for (const s of scenarios) {
      const hash = hashes.get(s.name)!;
      for (const [method, params] of [
        ['trace_transaction', [hash]],
        ['trace_replayTransaction', [hash, ['trace', 'stateDiff']]],
      ] as [string, unknown[]][]) {
        const own = await upstream(method, params);
        const run = translations.get(method)![0]!.run(params, upstream);
        const reverted = JSON.stringify(own).includes('"type":"create","error":"Reverted"') || /"error":"Reverted","result":\{"address"/.test(JSON.stringify(own));
        if (await refundUnknowable(hash)) {
          // No JavaScript tracer here: the answer is the re-execution's, equal to its own, or the refund gap.
          const answer = await run.then((a) => ({ a }), (error: unknown) => ({ error }));
          if ('error' in answer) expect(answer.error, s.name).toMatchObject({ missing: 'refund' });
          else {
            expect({ scenario: s.name, method, answer: answer.a }).toEqual({ scenario: s.name, method, answer: own });
            reexecuted++;
          }
          continue;
        }
        if (reverted) {
          await expect(run, s.name).rejects.toBeInstanceOf(TranslationGapError);
          continue;
        }
        expect({ scenario: s.name, method, answer: await run }).toEqual({ scenario: s.name, method, answer: own });
        equal++;
      }
    }
    expect(equal).toBeGreaterThanOrEqual(scenarios.length);
    expect(reexecuted).toBeGreaterThan(0);
  }, 60_000);

  it('behavior: stateDiff alone from prestateTracer diffMode equals its own for every scenario', async () => {
    for (const s of scenarios) {
      const params = [hashes.get(s.name)!, ['stateDiff']];
      expect({ scenario: s.name, answer: await translations.get('trace_replayTransaction')![0]!.run(params, upstream) }).toEqual({
        scenario: s.name,
        answer: await upstream('trace_replayTransaction', params),
      });
    }
  }, 60_000);

  it("error: an upstream's inconsistent output is its fault, named, never a trace", async () => {
    const hash = hashes.get('nested')!;
    /** The embedded engine with one answer altered, as a misbehaving node would give it. */
    const altered =
      (method: string, change: (result: Obj) => unknown): Upstream =>
      async (m, params) => {
        const result = await upstream(m, params);
        const tracer = (params.at(-1) as { tracer?: string } | undefined)?.tracer;
        return m === method || `${m}:${tracer}` === method ? change(structuredClone(result) as Obj) : result;
      };
    const cases: [string, Upstream, RegExp][] = [
      ['a receipt of another block', altered('eth_getTransactionReceipt', (r) => ({ ...r, blockHash: `0x${'12'.repeat(32)}` })), /different blocks/],
      ['a child frame with more gas used than gas', altered('debug_traceTransaction:callTracer', (r) => ({ ...r, calls: [{ ...(r.calls as Obj[])[0], gasUsed: '0xffffffff' }] })), /gasUsed is above gas/],
      ['a receipt above the gas limit', altered('eth_getTransactionReceipt', (r) => ({ ...r, gasUsed: '0xffffffff' })), /above the transaction gas limit/],
      ['a diff without the sender', altered('debug_traceTransaction:prestateTracer', (r) => ('post' in r ? { pre: {}, post: {} } : r)), /does not list the sender/],
    ];
    for (const [name, bad, message] of cases) {
      const run = translations.get('trace_replayTransaction')![0]!.run([hash, ['trace', 'stateDiff']], bad);
      await expect(run, name).rejects.toBeInstanceOf(UpstreamTraceMalformedError);
      await expect(run, name).rejects.toThrow(message);
    }
    const dropped = altered('trace_transaction', (r) => (r as unknown as Obj[]).slice(0, -1));
    await expect(translations.get('debug_traceTransaction')![0]!.run([hash], dropped)).rejects.toThrow(/`subtraces` says/);
  }, 30_000);

  /**
   * Its callTracer less the frames its Parity entries never list (docs/trace-conventions.md,
   * "Parity methods": precompile visibility, calls that never start), after checking each dropped
   * frame is one of those.
   */
  function withoutParityHidden(frame: Obj): Obj {
    const calls = (frame.calls as Obj[] | undefined)?.filter((c) => {
      const precompile = typeof c.to === 'string' && isPrecompileAddress(hexToBytes(c.to)) && ['CALL', 'STATICCALL'].includes(c.type as string) && (c.value ?? '0x0') === '0x0' && c.error === undefined;
      const neverStarted = c.error === 'insufficient balance for transfer' || c.error === 'max call depth exceeded';
      return !precompile && !neverStarted;
    });
    const out = { ...frame };
    if (calls && calls.length > 0) out.calls = calls.map((c) => withoutParityHidden(c));
    else delete out.calls;
    return out;
  }

  it('behavior: callTracer and flatCallTracer from trace_transaction and trace_replayTransaction equal its own, less what Parity never lists', async () => {
    let equal = 0;
    for (const s of scenarios) {
      const hash = hashes.get(s.name)!;
      for (const translation of translations.get('debug_traceTransaction')!) {
        for (const options of [{ tracer: 'callTracer' }, { tracer: 'flatCallTracer' }]) {
          const params = [hash, options];
          if (!translation.accepts(params)) continue;
          const own = (await upstream('debug_traceTransaction', params)) as Obj;
          const run = translation.run(params, upstream);
          const texts = JSON.stringify(own);
          if (/"error":"(out of gas|contract creation code storage out of gas|out of gas: not enough gas for reentrancy sentry)"/.test(texts)) {
            await expect(run, s.name).rejects.toMatchObject({ missing: 'gethErrorText' });
            continue;
          }
          if (options.tracer === 'flatCallTracer') {
            // flatCallTracer hides the same precompile calls; a call that never started is listed by geth only.
            if (texts.includes('insufficient balance for transfer')) continue;
            expect({ scenario: s.name, answer: await run }).toEqual({ scenario: s.name, answer: own });
          } else {
            expect({ scenario: s.name, answer: await run }).toEqual({ scenario: s.name, answer: withoutParityHidden(own) });
          }
          equal++;
        }
      }
    }
    expect(equal).toBeGreaterThan(scenarios.length * 3);
  }, 60_000);

  it('behavior: debug_traceCall callTracer, flatCallTracer and prestateTracer diffMode from trace_call equal its own, or name what trace_call lacks', async () => {
    const [frames, prestate] = translations.get('debug_traceCall')!;
    let equal = 0;
    const gaps = new Map<string, number>();
    for (const s of scenarios) {
      const tx = (await upstream('eth_getTransactionByHash', [hashes.get(s.name)!])) as Obj;
      const call = { from: tx.from, to: tx.to ?? undefined, data: tx.input, value: tx.value, gas: tx.gas };
      for (const options of [{ tracer: 'callTracer' }, { tracer: 'flatCallTracer' }, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]) {
        const params = [call, 'latest', options];
        const translation = options.tracer === 'prestateTracer' ? prestate! : frames!;
        expect(translation.accepts(params)).toBe(true);
        const own = (await upstream('debug_traceCall', params)) as Obj;
        const answer = await translation.run(params, upstream).then((a) => ({ a }), (error: unknown) => ({ error }));
        if ('error' in answer) {
          expect(answer.error, s.name).toBeInstanceOf(TranslationGapError);
          const missing = (answer.error as TranslationGapError).missing;
          gaps.set(missing, (gaps.get(missing) ?? 0) + 1);
          continue;
        }
        const texts = JSON.stringify(own);
        const expected = options.tracer === 'callTracer' ? withoutParityHidden(own) : own;
        if (options.tracer === 'flatCallTracer' && texts.includes('insufficient balance for transfer')) continue;
        expect({ scenario: s.name, tracer: options.tracer, answer: answer.a }).toEqual({ scenario: s.name, tracer: options.tracer, answer: expected });
        equal++;
      }
    }
    console.info(`debug_traceCall from trace_call: ${equal} equal, gaps ${JSON.stringify([...gaps])}`);
    // Calls that store earn no known refund; the rest, and every diff without a destroyed account, translate.
    expect(equal).toBeGreaterThan(scenarios.length);
    expect(gaps.get('refund')).toBeGreaterThan(0);
    expect([...gaps.keys()].every((k) => ['refund', 'gethErrorText', 'destroyedStorage'].includes(k))).toBe(true);
  }, 60_000);

  it('behavior: debug_traceTransaction prestateTracer diffMode from trace_replayBlockTransactions equals its own, or names a destroyed account', async () => {
    const params = (hash: string) => [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }];
    const translation = translations.get('debug_traceTransaction')!.find((t) => t.accepts(params(ZERO)))!;
    expect(translation.requires.map((n) => n.method)).toContain('trace_replayBlockTransactions');
    let equal = 0;
    for (const s of scenarios) {
      const p = params(hashes.get(s.name)!);
      const own = await upstream('debug_traceTransaction', p);
      const answer = await translation.run(p, upstream).then((a) => ({ a }), (error: unknown) => ({ error }));
      if ('error' in answer) {
        expect(answer.error, s.name).toMatchObject({ missing: 'destroyedStorage' });
        continue;
      }
      expect({ scenario: s.name, answer: answer.a }).toEqual({ scenario: s.name, answer: own });
      equal++;
    }
    expect(equal).toBeGreaterThanOrEqual(scenarios.length - 2);
    await expect(translation.run(params(`0x${'ab'.repeat(32)}`), upstream)).rejects.toMatchObject({ code: -32001 });

    // Two transactions in one block: the second leaves account 0's nonce unchanged ("="), which
    // the first changed, so its value before the second comes from the first one's diff.
    const [a, b] = [0, 1].map((i) => privateKeyToAccount(bytesToHex(temp.chain.accounts[i]!.privateKey)));
    const base = { chainId: Number(temp.chain.chainId), type: 'eip1559' as const, maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1n, gas: 21_000n, value: 1n };
    const nonce = async (address: string) => Number(BigInt((await upstream('eth_getTransactionCount', [address, 'latest'])) as string));
    await temp.chain.setAutomine(false);
    try {
      const first = await a!.signTransaction({ ...base, nonce: await nonce(a!.address), to: b!.address });
      const second = await b!.signTransaction({ ...base, nonce: await nonce(b!.address), to: a!.address });
      const sent = [];
      for (const raw of [first, second]) sent.push((await upstream('eth_sendRawTransaction', [raw])) as string);
      await temp.chain.mine();
      const [t1, t2] = (await Promise.all(sent.map((h) => upstream('eth_getTransactionByHash', [h])))) as Obj[];
      expect([t1!.blockNumber, t2!.transactionIndex]).toEqual([t2!.blockNumber, '0x1']);
      for (const h of sent) expect(await translation.run(params(h), upstream)).toEqual(await upstream('debug_traceTransaction', params(h)));
    } finally {
      await temp.chain.setAutomine(true);
    }
  }, 60_000);
});
