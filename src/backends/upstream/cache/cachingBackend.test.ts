// The caching backend over a real anvil (through the upstream backend): every cacheable method is
// served from the cache the second time and equals the node's answer, tracer config order does not
// matter, blocks the chain view does not vouch for stay out, a reorg (snapshot/revert and another
// block at the same height) drops what it replaced, the byte bound holds, batches mix hits and misses.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilProcess } from '../../../testing/startAnvil.js';
import type { Backend, BackendCall, CallOutcome } from '../../backend.js';
import type { RpcContext } from '../../embedded/methodTable.js';
import type { Hex } from '../../../rpc/hex.js';
import { RawJson, rawJsonToValue } from '../../../rpc/rawJson.js';
import { createUpstreamBackend, type UpstreamBackend } from '../upstreamBackend.js';
import { createCachingBackend, type CachingBackend } from './cachingBackend.js';
import { createTestChainView, type TestChainView } from './testing/testChainView.js';

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const SHA256_PRECOMPILE = '0x0000000000000000000000000000000000000002';

let anvil: AnvilProcess;
let node: UpstreamBackend;
const plain: RpcContext = { requestId: 'test', signal: new AbortController().signal };

/** The real node behind a pass-through that records what reaches it (methods per call or batch). */
function recorded(inner: Backend) {
  const sent: string[][] = [];
  const backend: Backend = {
    name: inner.name,
    handles: () => true,
    call: (method, params, ctx) => {
      sent.push([method]);
      return inner.call(method, params, ctx);
    },
    callBatch: (calls: readonly BackendCall[], ctx: RpcContext): Promise<CallOutcome[]> => {
      sent.push(calls.map((c) => c.method));
      return inner.callBatch!(calls, ctx);
    },
  };
  return { backend, sent };
}

/** A context that records the cache's notes, as the gateway's does for X-Cache. */
function noting() {
  const notes: boolean[] = [];
  const ctx: RpcContext = { requestId: 'test', signal: new AbortController().signal, noteCache: (hit) => notes.push(hit) };
  return { ctx, notes };
}

const direct = (method: string, params: unknown[]) => node.call(method, params, plain);
/** Sends a transfer and waits until anvil mined it (automine answers before the block is in). */
const send = async (value: bigint): Promise<Hex> => {
  const tx = (await direct('eth_sendTransaction', [{ from: FROM, to: TO, value: `0x${value.toString(16)}` }])) as Hex;
  for (let i = 0; i < 200 && (await direct('eth_getTransactionReceipt', [tx])) === null; i++) await new Promise((r) => setTimeout(r, 10));
  return tx;
};
const blockOf = async (tx: Hex) => (await direct('eth_getTransactionReceipt', [tx])) as { blockHash: Hex; blockNumber: Hex };

let caches: CachingBackend[] = [];
function cacheOver(inner: Backend, view: TestChainView, maxBytes = 1 << 20): CachingBackend {
  const cache = createCachingBackend(inner, { chain: view, maxBytes, network: 'ANVIL' });
  caches.push(cache);
  return cache;
}
afterEach(() => {
  for (const c of caches) c.close();
  caches = [];
});

let txA: Hex;
let txB: Hex;
beforeAll(async () => {
  anvil = await startAnvil();
  node = createUpstreamBackend({ url: anvil.url, name: 'anvil' });
  txA = await send(1n);
  txB = await send(2n);
  await send(3n);
}, 30_000);
afterAll(async () => {
  node?.close();
  await anvil?.stop();
});

describe('caching backend (real anvil)', () => {
  it('default: a cacheable call misses, then hits with the node\'s own answer and without reaching it', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const rec = recorded(node);
    const cache = cacheOver(rec.backend, view);
    const { ctx, notes } = noting();
    const first = await cache.call('trace_transaction', [txA], ctx);
    const second = await cache.call('trace_transaction', [txA], ctx);
    expect(second).toBeInstanceOf(RawJson);
    expect(rawJsonToValue(first)).toEqual(await direct('trace_transaction', [txA]));
    expect(rawJsonToValue(second)).toEqual(rawJsonToValue(first));
    expect(notes).toEqual([false, true]);
    expect(rec.sent).toEqual([['trace_transaction']]);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1, entries: 1 });
    expect(cache.stats().bytes).toBe((second as RawJson).text.length);
  });

  it('behavior: every cacheable method hits on the second call and answers what the node answers', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const { blockHash, blockNumber } = await blockOf(txB);
    view.setFinalized(BigInt(blockNumber));
    const cache = cacheOver(node, view);
    const calls: [string, unknown[]][] = [
      ['eth_getTransactionByHash', [txB]],
      ['eth_getTransactionReceipt', [txB]],
      ['eth_getBlockByHash', [blockHash, true]],
      ['eth_getBlockReceipts', [blockHash]],
      ['eth_getBlockReceipts', [blockNumber]],
      ['eth_getBlockByNumber', [blockNumber, false]],
      ['trace_transaction', [txB]],
      ['trace_block', [blockNumber]],
      ['debug_traceTransaction', [txB, { tracer: 'callTracer' }]],
      ['debug_traceTransaction', [txB]],
      ['debug_traceBlockByHash', [blockHash, { tracer: 'callTracer' }]],
      ['debug_traceBlockByNumber', [blockNumber, { tracer: 'prestateTracer' }]],
      ['eth_call', [{ to: SHA256_PRECOMPILE, data: '0x01' }, { blockHash }]],
    ];
    for (const [method, params] of calls) {
      const { ctx, notes } = noting();
      const expected = await direct(method, params);
      expect(rawJsonToValue(await cache.call(method, params, ctx)), method).toEqual(expected);
      const hit = await cache.call(method, params, ctx);
      expect(hit, method).toBeInstanceOf(RawJson);
      expect(rawJsonToValue(hit), method).toEqual(expected);
      expect(notes, method).toEqual([false, true]);
    }
  });

  it('behavior: the tracer config is part of the key, its key order is not', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const rec = recorded(node);
    const cache = cacheOver(rec.backend, view);
    const { ctx, notes } = noting();
    await cache.call('debug_traceTransaction', [txA, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: true } }], ctx);
    await cache.call('debug_traceTransaction', [txA, { tracerConfig: { withLog: true, onlyTopCall: true }, tracer: 'callTracer' }], ctx);
    const other = await cache.call('debug_traceTransaction', [txA, { tracer: 'prestateTracer' }], ctx);
    expect(notes).toEqual([false, true, false]);
    expect(rawJsonToValue(other)).toEqual(await direct('debug_traceTransaction', [txA, { tracer: 'prestateTracer' }]));
    // The first miss sent its transaction lookup with it; the third found that lookup cached.
    expect(rec.sent).toEqual([['debug_traceTransaction', 'eth_getTransactionByHash'], ['debug_traceTransaction']]);
  });

  it('behavior: calls naming a tag or a number above the finalized block pass through, unnoted and uncached', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    view.setFinalized(0n);
    const cache = cacheOver(node, view);
    const { ctx, notes } = noting();
    for (let i = 0; i < 2; i++) {
      await cache.call('trace_block', ['0x1'], ctx);
      await cache.call('eth_getBlockByNumber', ['latest', false], ctx);
      await cache.call('eth_call', [{ to: SHA256_PRECOMPILE, data: '0x01' }, 'latest'], ctx);
      await cache.call('eth_blockNumber', [], ctx);
    }
    expect(notes).toEqual([]);
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 0, entries: 0 });
  });

  it('behavior: an answer whose block the chain view does not vouch for is not cached', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const { blockNumber } = await blockOf(txA);
    const cache = cacheOver(node, view);
    const { ctx, notes } = noting();
    // Another hash is canonical at that height: the node's answer is from another fork.
    view.setCanonical(BigInt(blockNumber), `0x${'ab'.repeat(32)}`);
    await cache.call('trace_transaction', [txA], ctx);
    await cache.call('trace_transaction', [txA], ctx);
    // The view does not track that height and it is not final: nothing vouches for it.
    view.setCanonical(BigInt(blockNumber), undefined);
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    expect(notes).toEqual([false, false, false, false]);
    expect(cache.stats().entries).toBe(0);
  });

  it('behavior: a reorg drops the entries of the blocks it replaced; the new block\'s answers are cached', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const head = BigInt((await direct('eth_blockNumber', [])) as string);
    view.setFinalized(head);
    const snapshot = await direct('evm_snapshot', []);
    const old = await send(41n);
    await view.refresh();
    const rec = recorded(node);
    const cache = cacheOver(rec.backend, view);
    const { ctx, notes } = noting();
    const oldBlock = await blockOf(old);
    await cache.call('trace_transaction', [old], ctx);
    await cache.call('eth_getBlockByHash', [oldBlock.blockHash, false], ctx);
    await cache.call('eth_getTransactionReceipt', [txA], ctx); // final: survives
    expect(cache.stats().entries).toBe(3);

    await direct('evm_revert', [snapshot]);
    const replacement = await send(42n);
    const newBlock = await blockOf(replacement);
    expect(newBlock.blockNumber).toBe(oldBlock.blockNumber);
    expect(newBlock.blockHash).not.toBe(oldBlock.blockHash);
    await view.refresh();
    expect(view.events.at(-1)).toMatchObject({ kind: 'reorg', fromNumber: head + 1n });
    expect(cache.stats().entries).toBe(1);

    rec.sent.length = 0;
    expect(await cache.call('trace_transaction', [old], ctx)).toEqual([]);
    await cache.call('trace_transaction', [replacement], ctx);
    const hit = await cache.call('trace_transaction', [replacement], ctx);
    expect((rawJsonToValue(hit) as { blockHash: Hex }[])[0]!.blockHash).toBe(newBlock.blockHash);
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    expect(notes.slice(3)).toEqual([false, false, true, true]);
    expect(rec.sent).toEqual([['trace_transaction'], ['trace_transaction']]);
  });

  it('behavior: a hit whose block is no longer canonical is dropped even without a reorg event', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const { blockNumber, blockHash } = await blockOf(txA);
    const cache = cacheOver(node, view);
    const { ctx, notes } = noting();
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    view.setCanonical(BigInt(blockNumber), `0x${'cd'.repeat(32)}`);
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    view.setCanonical(BigInt(blockNumber), blockHash);
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    expect(notes).toEqual([false, false, false, true]);
  });

  it('behavior: the cache stays within its byte bound, evicting the least recently used answers', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const sizeOf = async (method: string, tx: Hex) => JSON.stringify(await direct(method, [tx])).length;
    const [a, b, trace] = [await sizeOf('eth_getTransactionReceipt', txA), await sizeOf('eth_getTransactionReceipt', txB), await sizeOf('trace_transaction', txA)];
    expect(trace).toBeLessThan(b); // so the trace evicts B alone
    const bound = a + b + 10;
    const cache = createCachingBackend(node, { chain: view, maxBytes: bound, maxEntryBytes: bound, network: 'ANVIL' });
    caches.push(cache);
    const { ctx, notes } = noting();
    const txs = [txA, txB];
    for (const tx of txs) await cache.call('eth_getTransactionReceipt', [tx], ctx);
    await cache.call('eth_getTransactionReceipt', [txA], ctx); // A is now more recent than B
    await cache.call('trace_transaction', [txA], ctx); // does not fit beside both: B goes
    expect(cache.stats().bytes).toBeLessThanOrEqual(bound);
    expect(cache.stats().entries).toBe(2);
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    await cache.call('eth_getTransactionReceipt', [txB], ctx);
    expect(notes).toEqual([false, false, true, false, true, false]);
    // An answer over maxEntryBytes never enters.
    const small = createCachingBackend(node, { chain: view, maxBytes: 1 << 20, maxEntryBytes: 10, network: 'ANVIL' });
    caches.push(small);
    await small.call('eth_getTransactionReceipt', [txA], ctx);
    expect(small.stats().entries).toBe(0);
  });

  it('behavior: a batch answers its hits locally and sends only the rest (with needed lookups) as one batch, in order', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const { blockHash } = await blockOf(txB);
    const rec = recorded(node);
    const cache = cacheOver(rec.backend, view);
    const { ctx, notes } = noting();
    await cache.call('eth_getTransactionReceipt', [txA], ctx);
    await cache.call('trace_transaction', [txB], ctx);
    rec.sent.length = 0;
    const calls: BackendCall[] = [
      { method: 'eth_getTransactionReceipt', params: [txA] },
      { method: 'eth_blockNumber', params: [] },
      { method: 'debug_traceBlockByHash', params: [blockHash, { tracer: 'callTracer' }] },
      { method: 'trace_transaction', params: [txB] },
      { method: 'no_such_method', params: [] },
      { method: 'eth_getTransactionReceipt', params: [txB] },
    ];
    const outcomes = await cache.callBatch!(calls, ctx);
    // The block trace's lookup goes right after it, in the same batch (one node, one moment).
    expect(rec.sent).toEqual([['eth_blockNumber', 'debug_traceBlockByHash', 'eth_getBlockByHash', 'no_such_method', 'eth_getTransactionReceipt']]);
    expect(notes.slice(2)).toEqual([true, false, true, false]);
    const plainOutcomes = await node.callBatch!(calls, plain);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, true, false, true]);
    for (let i = 0; i < calls.length; i++) {
      const o = outcomes[i]!;
      const p = plainOutcomes[i]!;
      if (o.ok && p.ok) expect(rawJsonToValue(o.result), calls[i]!.method).toEqual(p.result);
    }
    // The second time, every cacheable call of the batch hits: only the others reach the node.
    rec.sent.length = 0;
    await cache.callBatch!(calls, ctx);
    expect(rec.sent).toEqual([['eth_blockNumber', 'no_such_method']]);
    expect(notes.slice(6)).toEqual([true, true, true, true]);
  });

  it('error: errors are passed on and never cached', async () => {
    const view = createTestChainView(node);
    await view.refresh();
    const cache = cacheOver(node, view);
    const { ctx, notes } = noting();
    const badConfig = [txA, { tracer: 'noSuchTracer' }];
    await expect(cache.call('debug_traceTransaction', badConfig, ctx)).rejects.toThrow();
    await expect(cache.call('debug_traceTransaction', badConfig, ctx)).rejects.toThrow();
    expect(notes).toEqual([false, false]);
    // The lookup that went with it (a good answer) was cached on its own.
    expect(cache.stats().entries).toBe(1);
  });
});
