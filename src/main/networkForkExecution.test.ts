// Fork execution as networkBackends.ts wires it, through a real gateway: a network whose only
// upstream is a plain archive RPC (a test-side proxy in front of anvil passing only eth_*, net_*
// and web3_* methods) answers trace_call, debug_traceCall, trace_replayTransaction and
// debug_traceTransaction (every scenario, every tracer, blocks too) by executing on anvil's state,
// equal to the embedded engine's answers for the same signed transactions, with X-Trace-Source:
// executed; an anvil network translates what anvil lacks and executes what neither anvil nor a
// translation has (vmTrace, a translation's gap), equal too; a state read failing mid-execution
// fails the request.
import { Writable } from 'node:stream';
import { parseTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../log/createLogger.js';
import { post, rpcBody, startTestGateway, type TestGateway } from '../gateway/testing/startTestGateway.js';
import { rpc } from '../backends/embedded/testing/chainRpc.js';
import { type Json, type TraceAnvilPair, startTraceAnvilPair } from '../backends/embedded/testing/traceAnvilPair.js';
import { startMisbehavingUpstream, type MisbehavingUpstream } from '../backends/upstream/testing/misbehavingUpstream.js';
import { createNetworkBackend, type NetworkBackend } from './networkBackends.js';

const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });
/** What a plain archive RPC answers; everything else is -32601. */
const plainMethod = (method: string) => /^(eth|net|web3)_/.test(method);

let pair: TraceAnvilPair;
/** Between the plain proxy and anvil: passes through until a test makes it fail a method. */
let flaky: MisbehavingUpstream;
let plain: MisbehavingUpstream;
let plainNet: NetworkBackend;
let anvilNet: NetworkBackend;
let t: TestGateway;

beforeAll(async () => {
  pair = await startTraceAnvilPair(['--hardfork', 'prague']);
  flaky = await startMisbehavingUpstream({ target: pair.anvil.url, mode: 'proxy' });
  plain = await startMisbehavingUpstream({ target: flaky.url, mode: 'methodNotFound', affects: (method) => !plainMethod(method) });
  const fork = { hardfork: 'prague' };
  plainNet = createNetworkBackend({ kind: 'upstream', name: 'PLAIN', chainId: 31337n, upstreams: [{ url: plain.url, weight: 1 }] }, { logger, headPollMs: 100, fork });
  anvilNet = createNetworkBackend({ kind: 'upstream', name: 'ANVIL', chainId: 31337n, upstreams: [{ url: pair.anvil.url, weight: 1 }] }, { logger, headPollMs: 100, fork });
  await Promise.all([plainNet.start(), anvilNet.start()]);
  t = await startTestGateway({ networks: [{ name: 'plain', passThrough: plainNet.backend }, { name: 'anvil', passThrough: anvilNet.backend }] });
}, 60_000);
afterAll(async () => {
  await t?.close();
  plainNet?.close();
  anvilNet?.close();
  await plain?.close();
  await flaky?.close();
  await pair?.stop();
});

async function ours(method: string, params: unknown[]): Promise<Json> {
  const answer = await rpc(pair.table, method, params);
  if ('error' in answer) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as Json;
}

async function ask(network: string, method: string, params: unknown[]) {
  const r = await post(`${t.url}/${network}/v2/${t.keys.enterprise}`, rpcBody(method, params));
  return { body: r.json as { result?: Json; error?: { code: number; message: string } }, source: r.headers.get('x-trace-source'), cache: r.headers.get('x-cache') };
}

describe('fork execution on a plain archive RPC', () => {
  it('default: the plain network has no trace method of its own, and every trace path is execution', () => {
    const paths = plainNet.status().tracePaths!;
    expect(paths['trace_call/trace']).toBe('executed');
    expect(paths['trace_call/vmTrace']).toBe('executed');
    expect(paths['debug_traceCall/structLogger']).toBe('executed');
    expect(paths['debug_traceTransaction/callTracer']).toBe('executed');
    expect(plainNet.status().upstreams[0]!.methods).toMatchObject({ trace_transaction: false, debug_traceCall: false });
  });

  it('behavior: trace_call and debug_traceCall (every tracer, vmTrace) at the head equal the embedded engine, executed', async () => {
    const from = ((await ours('eth_accounts', [])) as string[])[0]!;
    const probe = ((await ours('eth_getTransactionReceipt', [pair.hashes.get('deployProbe')!])) as { contractAddress: string }).contractAddress;
    const token = ((await ours('eth_getTransactionReceipt', [pair.hashes.get('deployToken')!])) as { contractAddress: string }).contractAddress;
    // The scenario transactions as calls: nested calls, reverts, creates, token transfers reading storage.
    const calls = pair.scenarios
      .filter((s) => !['deployToken', 'deployProbe', 'failCreate'].includes(s.name))
      .slice(0, 8)
      .map((s) => {
        const tx = parseTransaction(s.raw as `0x${string}`);
        return { from, to: tx.to as string | undefined, data: (tx.data ?? '0x') as string, value: `0x${(tx.value ?? 0n).toString(16)}`, gas: `0x${tx.gas!.toString(16)}` };
      });
    calls.push({ from, to: token, data: '0x70a08231000000000000000000000000' + from.slice(2), value: '0x0', gas: '0x100000' });
    expect(calls.some((c) => c.to?.toLowerCase() === probe.toLowerCase())).toBe(true);
    let compared = 0;
    for (const call of calls) {
      for (const [method, params] of [
        ['trace_call', [call, ['trace', 'stateDiff', 'vmTrace'], 'latest']],
        ['debug_traceCall', [call, 'latest', { tracer: 'callTracer', tracerConfig: { withLog: true } }]],
        ['debug_traceCall', [call, 'latest', { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]],
        ['debug_traceCall', [call, 'latest', { tracer: 'flatCallTracer' }]],
        ['debug_traceCall', [call, 'latest', {}]],
      ] as const) {
        const mine = await ours(method, params as unknown as unknown[]);
        const theirs = await ask('plain', method, params as unknown as unknown[]);
        expect(theirs.source, `${method} ${JSON.stringify(theirs.body.error)}`).toBe('executed');
        expect({ method, call, result: theirs.body.result }).toEqual({ method, call, result: mine });
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(40);
    // The state came from the plain node, read lazily at the head's hash.
    expect(flaky.seen.get('eth_getStorageAt')).toBeGreaterThan(0);
    expect(flaky.seen.get('eth_getCode')).toBeGreaterThan(0);
    expect(flaky.seen.get('debug_traceCall') ?? 0).toBe(0);
    const full = await ask('plain', 'trace_call', [calls[0], ['vmTrace'], 'latest']);
    expect((full.body.result as { vmTrace: { ops: unknown[] } }).vmTrace.ops.length).toBeGreaterThan(0);
  }, 120_000);

  it('behavior: trace_replayTransaction and debug_traceTransaction (struct logger) replay the block prefix on the parent state, equal to the embedded engine', async () => {
    for (const name of ['nested', 'catchRevert', 'makeAndKill', 'pay', 'mixed']) {
      const hash = pair.hashes.get(name)!;
      for (const [method, params] of [
        ['trace_replayTransaction', [hash, ['trace', 'stateDiff', 'vmTrace']]],
        ['debug_traceTransaction', [hash, {}]],
        ['debug_traceTransaction', [hash, { tracer: 'prestateTracer' }]],
      ] as const) {
        const theirs = await ask('plain', method, params as unknown as unknown[]);
        expect(theirs.source, `${name} ${method} ${JSON.stringify(theirs.body.error)}`).toBe('executed');
        expect({ name, method, result: theirs.body.result }).toEqual({ name, method, result: await ours(method, params as unknown as unknown[]) });
      }
    }
  }, 120_000);

  it('behavior: mined blocks too: trace_transaction and debug_traceBlockByNumber executed equal the embedded engine (each chain with its own block hash)', async () => {
    for (const name of ['nested', 'makeChildren', 'insufficientBalanceCall']) {
      const hash = pair.hashes.get(name)!;
      const [theirReceipt, ourReceipt] = (await pair.both('eth_getTransactionReceipt', [hash])) as [{ blockHash: string; blockNumber: string }, { blockHash: string }];
      const entries = await ask('plain', 'trace_transaction', [hash]);
      expect(entries.source).toBe('executed');
      const normalised = (entries.body.result as { blockHash: string }[]).map((e) => {
        expect(e.blockHash).toBe(theirReceipt.blockHash);
        return { ...e, blockHash: ourReceipt.blockHash };
      });
      expect({ name, entries: normalised }).toEqual({ name, entries: await ours('trace_transaction', [hash]) });
      const params = [theirReceipt.blockNumber, { tracer: 'callTracer' }];
      const block = await ask('plain', 'debug_traceBlockByNumber', params);
      expect(block.source).toBe('executed');
      expect({ name, block: block.body.result }).toEqual({ name, block: await ours('debug_traceBlockByNumber', params) });
      // A call between the block's transactions: on the parent's state after the first txIndex of them.
      const tx = (await ours('eth_getTransactionByHash', [hash])) as { from: string; to: string; input: string };
      for (const txIndex of [0, 1]) {
        const between = [{ from: tx.from, to: tx.to, data: tx.input }, theirReceipt.blockNumber, { tracer: 'prestateTracer', txIndex }];
        const r = await ask('plain', 'debug_traceCall', between);
        expect(r.source).toBe('executed');
        expect({ name, txIndex, result: r.body.result }).toEqual({ name, txIndex, result: await ours('debug_traceCall', between) });
      }
    }
  }, 60_000);

  it('behavior: every scenario, every trace method of a mined transaction or block with every tracer, executed on the plain node, equals the embedded engine (each chain with its own block hash)', async () => {
    const withOurHash = (value: Json, theirs: string, mine: string): Json => JSON.parse(JSON.stringify(value).replaceAll(theirs, mine)) as Json;
    let compared = 0;
    for (const s of pair.scenarios) {
      const hash = pair.hashes.get(s.name)!;
      const [theirReceipt, ourReceipt] = (await pair.both('eth_getTransactionReceipt', [hash])) as [{ blockHash: string; blockNumber: string }, { blockHash: string }];
      const tracers = [{}, { tracer: 'callTracer', tracerConfig: { withLog: true } }, { tracer: 'prestateTracer' }, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }, { tracer: 'flatCallTracer' }, { tracer: '4byteTracer' }];
      const asks: [string, unknown[], unknown[]][] = [
        ['trace_transaction', [hash], [hash]],
        ['trace_get', [hash, ['0x0']], [hash, ['0x0']]],
        ['trace_replayTransaction', [hash, ['trace', 'stateDiff', 'vmTrace']], [hash, ['trace', 'stateDiff', 'vmTrace']]],
        ['trace_block', [theirReceipt.blockNumber], [theirReceipt.blockNumber]],
        ['trace_replayBlockTransactions', [theirReceipt.blockNumber, ['trace', 'stateDiff']], [theirReceipt.blockNumber, ['trace', 'stateDiff']]],
        ...tracers.map((t): [string, unknown[], unknown[]] => ['debug_traceTransaction', [hash, t], [hash, t]]),
        ['debug_traceBlockByHash', [theirReceipt.blockHash, { tracer: 'flatCallTracer' }], [ourReceipt.blockHash, { tracer: 'flatCallTracer' }]],
      ];
      for (const [method, theirParams, ourParams] of asks) {
        const theirs = await ask('plain', method, theirParams);
        // An answer an earlier test asked for comes from the cache, which keeps no source.
        expect(theirs.cache === 'HIT' ? 'cached' : theirs.source, `${s.name} ${method} ${JSON.stringify(theirs.body.error)}`).toBe(theirs.cache === 'HIT' ? 'cached' : 'executed');
        const result = withOurHash(theirs.body.result!, theirReceipt.blockHash, ourReceipt.blockHash);
        expect({ scenario: s.name, method, theirParams, result }).toEqual({ scenario: s.name, method, theirParams, result: await ours(method, ourParams) });
        compared++;
      }
    }
    expect(compared).toBe(pair.scenarios.length * 12);
  }, 180_000);

  it('behavior: BLOCKHASH reads the upstream\'s headers, and state overrides apply over the fork state', async () => {
    const head = (await pair.anvilRpc('eth_getBlockByNumber', ['latest', false])) as { result: { number: string } };
    const previous = (await pair.anvilRpc('eth_getBlockByNumber', [`0x${(BigInt(head.result.number) - 1n).toString(16)}`, false])) as { result: { hash: string } };
    // PUSH1 1, NUMBER, SUB, BLOCKHASH, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: the previous block's hash.
    const at = '0x00000000000000000000000000000000000b1075';
    const r = await ask('plain', 'debug_traceCall', [{ to: at }, head.result.number, { tracer: 'callTracer', stateOverrides: { [at]: { code: '0x600143034060005260206000f3' } } }]);
    expect(r.source).toBe('executed');
    expect((r.body.result as { output: string }).output).toBe(previous.result.hash);
  }, 30_000);

  it('behavior: on an anvil network, what neither anvil nor a translation has (trace_replayTransaction vmTrace) is executed', async () => {
    const hash = pair.hashes.get('nested')!;
    expect(anvilNet.status().tracePaths!['trace_replayTransaction/vmTrace']).toBe('executed');
    const r = await ask('anvil', 'trace_replayTransaction', [hash, ['vmTrace']]);
    expect(r.source).toBe('executed');
    expect(r.body.result).toEqual(await ours('trace_replayTransaction', [hash, ['vmTrace']]));
  }, 60_000);

  it('behavior: on the anvil network every scenario\'s trace_get, trace_replayTransaction and flatCallTracer answer translated, or executed where the translation has a gap, equal to the embedded engine', async () => {
    const sources = new Map<string, number>();
    for (const s of pair.scenarios) {
      const hash = pair.hashes.get(s.name)!;
      const [theirReceipt, ourReceipt] = (await pair.both('eth_getTransactionReceipt', [hash])) as [{ blockHash: string }, { blockHash: string }];
      for (const [method, params] of [
        ['trace_get', [hash, ['0x0']]],
        ['trace_replayTransaction', [hash, ['trace', 'stateDiff']]],
        ['debug_traceTransaction', [hash, { tracer: 'flatCallTracer' }]],
      ] as [string, unknown[]][]) {
        const theirs = await ask('anvil', method, params);
        expect(['translated', 'executed'], `${s.name} ${method} ${JSON.stringify(theirs.body.error)}`).toContain(theirs.source);
        sources.set(theirs.source!, (sources.get(theirs.source!) ?? 0) + 1);
        const result = JSON.parse(JSON.stringify(theirs.body.result).replaceAll(theirReceipt.blockHash, ourReceipt.blockHash)) as Json;
        expect({ scenario: s.name, method, result }).toEqual({ scenario: s.name, method, result: await ours(method, params) });
      }
    }
    // Most are translated; the gaps (a reverted create's address, Parity's coarse out-of-gas text) are executed.
    expect(sources.get('translated')).toBeGreaterThan(pair.scenarios.length * 2);
    expect(sources.get('executed')).toBeGreaterThan(0);
  }, 120_000);

  it('behavior: a translation refused for a gap (a reverted create\'s address, which callTracer leaves out) is executed instead', async () => {
    const hash = pair.hashes.get('failCreate')!;
    const mine = (await ours('trace_replayTransaction', [hash, ['trace']])) as { trace: { type: string; error?: string; result: { address?: string } | null }[] };
    // The gap's premise: our answer names the address of a create that reverted.
    expect(mine.trace.some((e) => e.type === 'create' && e.error === 'Reverted' && e.result?.address !== undefined)).toBe(true);
    const r = await ask('anvil', 'trace_replayTransaction', [hash, ['trace']]);
    expect(r.source).toBe('executed');
    expect(r.body.result).toEqual(mine);
  }, 60_000);

  it('error: a state read failing mid-execution fails the request, never a trace on zeros', async () => {
    const from = ((await ours('eth_accounts', [])) as string[])[0]!;
    const probe = ((await ours('eth_getTransactionReceipt', [pair.hashes.get('deployProbe')!])) as { contractAddress: string }).contractAddress;
    // The probe's `nested` entry point calls on into an address; a fresh one is in no cache.
    const tx = parseTransaction(pair.scenarios.find((x) => x.name === 'nested')!.raw as `0x${string}`);
    const call = (to: string) => [{ from, to, data: to === probe ? tx.data : '0x', value: '0x1' }, 'latest', {}];
    // Sender and contract read (and kept) first: the failure comes while the call runs.
    expect((await ask('plain', 'debug_traceCall', call(probe))).body.result).toBeDefined();
    flaky.mode = 'garbage';
    flaky.affects = (method) => ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt'].includes(method);
    const fresh = '0x00000000000000000000000000000000000fa11e';
    try {
      const r = await ask('plain', 'debug_traceCall', call(fresh));
      expect(r.body.result).toBeUndefined();
      expect(r.body.error).toMatchObject({ code: -32005, message: expect.stringMatching(/^fork execution could not read the account 0x0+fa11e at block 0x[0-9a-f]{64}: No healthy upstream on network PLAIN/) });
      expect(r.source).toBeNull();
    } finally {
      flaky.mode = 'proxy';
      flaky.affects = () => true;
    }
    const again = await ask('plain', 'debug_traceCall', call(fresh));
    expect(again.body.result).toEqual(await ours('debug_traceCall', call(fresh)));
  }, 60_000);
});
