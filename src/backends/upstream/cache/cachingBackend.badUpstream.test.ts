// Nothing wrong enters the cache: a small misbehaving JSON-RPC server (real HTTP, answers chosen
// per test) answers another hash than asked, a block of another fork, a pending transaction, null
// or empty "not found" answers, errors, garbage and a failed batch; each answer is passed on as
// the node gave it (or as the client's error) and the next identical call reaches the node again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RpcContext } from '../../embedded/methodTable.js';
import type { Hex } from '../../../rpc/hex.js';
import { RawJson, rawJsonToValue } from '../../../rpc/rawJson.js';
import { RpcError, UpstreamAbortedError, UpstreamBadAnswerError } from '../../../rpc/errors.js';
import { createUpstreamBackend, type UpstreamBackend } from '../upstreamBackend.js';
import { createCachingBackend, type CachingBackend } from './cachingBackend.js';
import { createTestChainView, type TestChainView } from './testing/testChainView.js';

type Answer = { result: unknown } | { error: { code: number; message: string } } | 'garbage';
type Behaviour = (params: unknown[]) => Answer;

const h = (byte: string) => `0x${byte.repeat(32)}` as Hex;
/** A callTracer answer of the shape the cache accepts. */
const CALL_FRAME = { type: 'CALL', from: '0x00000000000000000000000000000000000000aa', to: '0x00000000000000000000000000000000000000bb', gas: '0x5208', gasUsed: '0x5208', input: '0x', value: '0x1' };
const TX = h('11');
const OTHER_TX = h('22');
const BLOCK = h('aa');
const FORK_BLOCK = h('bb');

/** The real shapes' block-naming fields, for a transaction mined in block 5 (`BLOCK`). */
const txObject = (hash: Hex, blockHash: Hex | null = BLOCK) => ({ hash, blockHash, blockNumber: blockHash ? '0x5' : null, from: `0x${'01'.repeat(20)}`, nonce: '0x0' });
const receipt = (txHash: Hex, blockHash: Hex = BLOCK) => ({ transactionHash: txHash, blockHash, blockNumber: '0x5', status: '0x1', logs: [] });
const parityTrace = (txHash: Hex, blockHash: Hex = BLOCK) => ({ type: 'call', action: {}, result: {}, blockHash, blockNumber: 5, transactionHash: txHash, transactionPosition: 0, traceAddress: [], subtraces: 0 });
const block = (hash: Hex, number = '0x5', transactions: Hex[] = [TX]) => ({ hash, number, parentHash: h('00'), transactions });

let behaviours = new Map<string, Behaviour>();
const asked = new Map<string, number>();
let server: http.Server;
let url: string;

function answer(request: { id: unknown; method: string; params?: unknown[] }): unknown {
  asked.set(request.method, (asked.get(request.method) ?? 0) + 1);
  const behaviour = behaviours.get(request.method);
  const a: Answer = behaviour ? behaviour(request.params ?? []) : { error: { code: -32601, message: `method ${request.method} not found` } };
  if (a === 'garbage') return 'garbage';
  return { jsonrpc: '2.0', id: request.id, ...a };
}

function serve(req: http.IncomingMessage, res: http.ServerResponse) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Parameters<typeof answer>[0] | Parameters<typeof answer>[0][];
    const out = Array.isArray(body) ? body.map(answer) : answer(body);
    const text = out === 'garbage' || (Array.isArray(out) && out.includes('garbage')) ? '<html>proxy error</html>' : JSON.stringify(out);
    res.writeHead(200, { 'content-type': 'application/json' }).end(text);
  });
}

beforeAll(async () => {
  server = http.createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let node: UpstreamBackend;
let view: TestChainView;
let cache: CachingBackend;
let notes: boolean[];
let ctx: RpcContext;
function setUp(table: Record<string, Behaviour>) {
  behaviours = new Map(Object.entries(table));
  asked.clear();
  node = createUpstreamBackend({ url, name: 'bad-node', timeoutMs: 2_000 });
  view = createTestChainView(node);
  view.setCanonical(5n, BLOCK);
  cache = createCachingBackend(node, { chain: view, maxBytes: 1 << 20, network: 'TEST' });
  notes = [];
  ctx = { requestId: 'test', signal: new AbortController().signal, noteCache: (hit) => notes.push(hit) };
}
afterEach(() => {
  cache?.close();
  node?.close();
});

/**
 * Calls twice; both must reach the node and leave the cache as it was (`entries`: what the
 * companion lookups may rightly have added). Returns the first outcome.
 */
async function neverCached(method: string, params: unknown[], entries = 0): Promise<{ ok: boolean; value: unknown }> {
  const run = () => cache.call(method, params, ctx).then((value) => ({ ok: true, value }), (value: unknown) => ({ ok: false, value }));
  const first = await run();
  const second = await run();
  expect(second.ok, method).toBe(first.ok);
  expect(asked.get(method), method).toBe(2);
  expect(cache.stats().entries, method).toBe(entries);
  expect(notes, method).toEqual([false, false]);
  notes.length = 0;
  asked.clear();
  return first;
}

describe('caching backend: nothing wrong enters', () => {
  it('default: the well-behaved answers of this server are cached (the control for the cases below)', async () => {
    setUp({
      eth_getTransactionByHash: () => ({ result: txObject(TX) }),
      eth_getTransactionReceipt: () => ({ result: receipt(TX) }),
      trace_transaction: () => ({ result: [parityTrace(TX)] }),
      eth_getBlockByHash: () => ({ result: block(BLOCK) }),
      debug_traceTransaction: () => ({ result: CALL_FRAME }),
      debug_traceBlockByHash: () => ({ result: [{ txHash: TX, result: { type: 'CALL' } }] }),
    });
    const calls: [string, unknown[]][] = [
      ['eth_getTransactionByHash', [TX]],
      ['eth_getTransactionReceipt', [TX]],
      ['trace_transaction', [TX]],
      ['eth_getBlockByHash', [BLOCK, false]],
      ['debug_traceTransaction', [TX, { tracer: 'callTracer' }]],
      ['debug_traceBlockByHash', [BLOCK, { tracer: 'callTracer' }]],
    ];
    for (const [method, params] of calls) {
      await cache.call(method, params, ctx);
      expect(await cache.call(method, params, ctx), method).toBeInstanceOf(RawJson);
    }
    expect(cache.stats().entries).toBe(6);
  });

  it('error: an answer about another hash than the one asked for is passed on, not cached', async () => {
    setUp({
      eth_getTransactionByHash: () => ({ result: txObject(OTHER_TX) }),
      eth_getTransactionReceipt: () => ({ result: receipt(OTHER_TX) }),
      eth_getBlockByHash: () => ({ result: block(FORK_BLOCK) }),
      trace_transaction: () => ({ result: [parityTrace(TX), parityTrace(OTHER_TX)] }),
    });
    expect((await neverCached('eth_getTransactionByHash', [TX])).value).toEqual(txObject(OTHER_TX));
    await neverCached('eth_getTransactionReceipt', [TX]);
    await neverCached('eth_getBlockByHash', [BLOCK, false]);
    await neverCached('trace_transaction', [TX]);
  });

  it('error: a block of another fork than the canonical one, and a transaction in one, are not cached', async () => {
    setUp({
      eth_getBlockByHash: () => ({ result: block(FORK_BLOCK) }),
      eth_getTransactionReceipt: () => ({ result: receipt(TX, FORK_BLOCK) }),
      trace_transaction: () => ({ result: [parityTrace(TX, FORK_BLOCK)] }),
      eth_getBlockReceipts: () => ({ result: [receipt(TX, FORK_BLOCK)] }),
    });
    await neverCached('eth_getBlockByHash', [FORK_BLOCK, false]);
    await neverCached('eth_getTransactionReceipt', [TX]);
    await neverCached('trace_transaction', [TX]);
    await neverCached('eth_getBlockReceipts', [FORK_BLOCK]);
    // A block number at or below finalized whose answer names a non-canonical block.
    view.setFinalized(5n);
    await neverCached('eth_getBlockReceipts', ['0x5']);
  });

  it('error: entries naming two blocks, or a block number other than the one asked for, are not cached', async () => {
    setUp({
      trace_block: () => ({ result: [parityTrace(TX), { ...parityTrace(OTHER_TX), blockNumber: 6 }] }),
      eth_getBlockReceipts: () => ({ result: [receipt(TX)] }),
    });
    view.setFinalized(10n);
    await neverCached('trace_block', ['0x5']);
    await neverCached('eth_getBlockReceipts', ['0x6']);
  });

  it('error: null and empty "not found" answers are not cached', async () => {
    setUp({
      eth_getTransactionByHash: () => ({ result: null }),
      eth_getTransactionReceipt: () => ({ result: null }),
      eth_getBlockByHash: () => ({ result: null }),
      trace_transaction: () => ({ result: [] }),
      debug_traceTransaction: () => ({ result: null }),
      debug_traceBlockByHash: () => ({ result: [] }),
    });
    expect((await neverCached('eth_getTransactionByHash', [TX])).value).toBeNull();
    await neverCached('eth_getTransactionReceipt', [TX]);
    await neverCached('eth_getBlockByHash', [BLOCK, true]);
    expect((await neverCached('trace_transaction', [TX])).value).toEqual([]);
    await neverCached('debug_traceTransaction', [TX]);
    await neverCached('debug_traceBlockByHash', [BLOCK]);
  });

  it('error: a trace of a pending transaction, or whose lookup fails, is not cached', async () => {
    let lookupFails = false;
    setUp({
      debug_traceTransaction: () => ({ result: CALL_FRAME }),
      eth_getTransactionByHash: () => (lookupFails ? { error: { code: -32000, message: 'header not found' } } : { result: txObject(TX, null) }),
    });
    await neverCached('debug_traceTransaction', [TX]);
    lookupFails = true;
    await neverCached('debug_traceTransaction', [TX]);
  });

  it('error: a block trace that does not match the block\'s transactions is not cached', async () => {
    let entries: unknown[] = [];
    setUp({
      eth_getBlockByHash: () => ({ result: block(BLOCK, '0x5', [TX, OTHER_TX]) }),
      debug_traceBlockByHash: () => ({ result: entries }),
    });
    // The block lookup is a good answer and enters on its own.
    entries = [{ txHash: TX, result: {} }];
    await neverCached('debug_traceBlockByHash', [BLOCK], 1);
    entries = [{ txHash: OTHER_TX, result: {} }, { txHash: TX, result: {} }];
    await neverCached('debug_traceBlockByHash', [BLOCK], 1);
    entries = [{ txHash: TX, result: {} }, { txHash: OTHER_TX, result: {} }];
    await cache.call('debug_traceBlockByHash', [BLOCK], ctx);
    expect(cache.stats().entries).toBe(2); // the control: the trace and its block lookup
  });

  it('error: an answer in flight while a reorg replaced its block does not enter; one for a block below it does', async () => {
    let release: () => void = () => undefined;
    const gate = () => new Promise<void>((resolve) => (release = resolve));
    setUp({ eth_getTransactionReceipt: () => ({ result: receipt(TX) }) });
    server.removeAllListeners('request');
    const delayed = (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Parameters<typeof answer>[0];
        void gate().then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(body))));
      });
    };
    server.on('request', delayed);
    try {
      const inFlight = cache.call('eth_getTransactionReceipt', [TX], ctx);
      await new Promise((r) => setTimeout(r, 50));
      view.emit({ kind: 'reorg', fromNumber: 5n, head: { number: 5n, hash: BLOCK } });
      release();
      expect(await inFlight).toEqual(receipt(TX));
      expect(cache.stats().entries).toBe(0);
      const second = cache.call('eth_getTransactionReceipt', [TX], ctx);
      await new Promise((r) => setTimeout(r, 50));
      view.emit({ kind: 'reorg', fromNumber: 6n, head: { number: 6n, hash: h('cc') } });
      release();
      await second;
      expect(cache.stats().entries).toBe(1);
    } finally {
      server.removeListener('request', delayed);
      server.on('request', serve);
    }
  });

  it('behavior: identical concurrent misses share one request; one whose first caller went away asks again', async () => {
    let release: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => (release = resolve));
    setUp({ eth_getTransactionReceipt: () => ({ result: receipt(TX) }) });
    server.removeAllListeners('request');
    const delayed = (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Parameters<typeof answer>[0];
        void gate.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(body))));
      });
    };
    server.on('request', delayed);
    try {
      const three = [cache.call('eth_getTransactionReceipt', [TX], ctx), cache.call('eth_getTransactionReceipt', [TX], ctx), cache.call('eth_getTransactionReceipt', [TX], ctx)];
      await new Promise((r) => setTimeout(r, 50));
      release();
      const answers = await Promise.all(three);
      expect(answers.map(rawJsonToValue)).toEqual([receipt(TX), receipt(TX), receipt(TX)]);
      expect(asked.get('eth_getTransactionReceipt')).toBe(1);
      expect(notes).toEqual([false, false, false]);
      expect(cache.stats()).toMatchObject({ misses: 3, entries: 1 });

      // The first caller leaves before the answer: the one waiting on it is not failed by that.
      gate = new Promise<void>((resolve) => (release = resolve));
      asked.clear();
      const leaving = new AbortController();
      const first = cache.call('eth_getTransactionByHash', [TX], { requestId: 'a', signal: leaving.signal });
      const second = cache.call('eth_getTransactionByHash', [TX], ctx);
      behaviours.set('eth_getTransactionByHash', () => ({ result: txObject(TX) }));
      await new Promise((r) => setTimeout(r, 50));
      leaving.abort();
      await expect(first).rejects.toBeInstanceOf(UpstreamAbortedError);
      await new Promise((r) => setTimeout(r, 50));
      release();
      expect(rawJsonToValue(await second)).toEqual(txObject(TX));
      expect(asked.get('eth_getTransactionByHash')).toBe(2);
    } finally {
      server.removeListener('request', delayed);
      server.on('request', serve);
    }
  });

  it('error: node errors and garbage are passed on as errors and never cached', async () => {
    setUp({
      trace_transaction: () => ({ error: { code: -32000, message: 'transaction not found' } }),
      eth_getTransactionReceipt: () => 'garbage',
    });
    const failed = await neverCached('trace_transaction', [TX]);
    expect(failed.ok).toBe(false);
    expect(failed.value).toBeInstanceOf(RpcError);
    const garbage = await neverCached('eth_getTransactionReceipt', [TX]);
    expect(garbage.value).toBeInstanceOf(UpstreamBadAnswerError);
  });

  it('error: a batch the node fails as a whole fails only its sent calls when the cache answered others', async () => {
    let broken = false;
    setUp({
      eth_getTransactionReceipt: () => ({ result: receipt(TX) }),
      trace_transaction: () => (broken ? 'garbage' : { result: [parityTrace(TX)] }),
      eth_blockNumber: () => ({ result: '0x5' }),
    });
    await cache.call('eth_getTransactionReceipt', [TX], ctx);
    broken = true;
    const outcomes = await cache.callBatch!(
      [
        { method: 'eth_getTransactionReceipt', params: [TX] },
        { method: 'trace_transaction', params: [TX] },
        { method: 'eth_blockNumber', params: [] },
      ],
      ctx,
    );
    expect(outcomes[0]!.ok && rawJsonToValue(outcomes[0]!.result)).toEqual(receipt(TX));
    expect(outcomes[1]!.ok || outcomes[1]!.error).toBeInstanceOf(UpstreamBadAnswerError);
    expect(outcomes[2]!.ok || outcomes[2]!.error).toBeInstanceOf(UpstreamBadAnswerError);
    expect(cache.stats().entries).toBe(1);
    // With no hit, the batch's failure is the batch's.
    await expect(cache.callBatch!([{ method: 'trace_transaction', params: [TX] }, { method: 'eth_blockNumber', params: [] }], ctx)).rejects.toBeInstanceOf(UpstreamBadAnswerError);
  });
});
