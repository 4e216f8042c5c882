// The coalescing client against a real anvil behind the test proxy (which counts HTTP requests and
// can misbehave): cheap calls of one turn leave as one batch with each caller getting its own
// answer, transaction traces batch among themselves, writes and block traces go alone, a caller's abort settles only its call, a failed batch fails
// each call with the retryable error, a batch too large together is asked call by call, and a node that refuses batches is asked one by one.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { startMisbehavingUpstream, type MisbehavingUpstream } from './testing/misbehavingUpstream.js';
import { createJsonRpcClient } from './jsonRpcClient.js';
import { createCoalescingClient } from './coalescingClient.js';
import { UpstreamAbortedError, UpstreamAnswerTooLargeError, UpstreamConnectionError } from '../../rpc/errors.js';

let anvil: AnvilProcess;
let proxy: MisbehavingUpstream;
const ADDRESS = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** HTTP requests the proxy received (a batch is one request). */
let requests = 0;
let counter: http.Server;
let counterUrl = '';

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = await startMisbehavingUpstream({ target: anvil.url });
  // A pass-through in front of the proxy that counts HTTP requests.
  counter = http.createServer(async (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    try {
      const answer = await fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
    } catch {
      req.socket.destroy();
    }
  });
  await new Promise<void>((r) => counter.listen(0, '127.0.0.1', () => r()));
  counterUrl = `http://127.0.0.1:${(counter.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => counter?.close(r));
  await proxy?.close();
  await anvil?.stop();
});

describe('coalescing client', () => {
  it('behavior: cheap calls made together leave as one batch; each caller gets its own answer', async () => {
    const client = createCoalescingClient(createJsonRpcClient({ url: counterUrl }));
    requests = 0;
    const [number, balance, chainId, count] = await Promise.all([
      client.call('eth_blockNumber', []),
      client.call('eth_getBalance', [ADDRESS, 'latest']),
      client.call('eth_chainId', []),
      client.call('eth_getTransactionCount', [ADDRESS, 'latest']),
    ]);
    expect(requests).toBe(1);
    expect(proxy.seen.get('eth_getBalance')).toBeGreaterThan(0);
    expect([number, balance, chainId, count]).toEqual([
      (await createJsonRpcClient({ url: anvil.url }).call('eth_blockNumber', [])) as string,
      '0x21e19e0c9bab2400000',
      '0x7a69',
      '0x0',
    ]);
    // A node error for one call stays that call's.
    const [ok, bad] = await Promise.allSettled([client.call('eth_chainId', []), client.call('eth_getBalance', ['not-an-address', 'latest'])]);
    expect(ok).toMatchObject({ status: 'fulfilled', value: '0x7a69' });
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: -32602 } });
    client.close();
  });

  it('behavior: transaction traces of one turn share a batch of their own, never one with cheap calls', async () => {
    const client = createCoalescingClient(createJsonRpcClient({ url: counterUrl }), { maxTraceBatch: 2 });
    const hash = `0x${'ab'.repeat(32)}`;
    requests = 0;
    const outcomes = await Promise.allSettled([
      client.call('trace_transaction', [hash]),
      client.call('debug_traceTransaction', [hash, { tracer: 'callTracer' }]),
      client.call('trace_transaction', [`0x${'cd'.repeat(32)}`]),
      client.call('eth_chainId', []),
    ]);
    // Three traces in batches of at most two (2 requests), the cheap call in its own (1).
    expect(requests).toBe(3);
    // Each trace got its own method's answer (anvil knows none of these transactions).
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: [] });
    expect(outcomes[1].status).toBe('fulfilled');
    expect(Array.isArray((outcomes[1] as PromiseFulfilledResult<unknown>).value)).toBe(false);
    expect(outcomes[2]).toMatchObject({ status: 'fulfilled', value: [] });
    expect(outcomes[3]).toMatchObject({ status: 'fulfilled', value: '0x7a69' });
    client.close();
  });

  it('behavior: writes and block traces go alone, never inside a batch', async () => {
    const client = createCoalescingClient(createJsonRpcClient({ url: counterUrl }));
    requests = 0;
    await Promise.allSettled([
      client.call('eth_sendRawTransaction', ['0x00']),
      client.call('trace_block', ['latest']),
      client.call('eth_blockNumber', []),
      client.call('eth_chainId', []),
    ]);
    expect(requests).toBe(3);
    client.close();
  });

  it('error: a caller that aborts gets its abort alone; a failed batch fails each call with the retryable error', async () => {
    const client = createCoalescingClient(createJsonRpcClient({ url: counterUrl, timeoutMs: 300 }));
    const controller = new AbortController();
    proxy.mode = 'hang';
    const gone = client.call('eth_blockNumber', [], { signal: controller.signal });
    const stays = client.call('eth_chainId', []);
    controller.abort();
    await expect(gone).rejects.toBeInstanceOf(UpstreamAbortedError);
    await expect(stays).rejects.toMatchObject({ retryable: true });
    proxy.mode = 'reset';
    const results = await Promise.allSettled([client.call('eth_blockNumber', []), client.call('eth_chainId', [])]);
    for (const r of results) expect(r).toMatchObject({ status: 'rejected', reason: expect.any(UpstreamConnectionError) });
    proxy.mode = 'proxy';
    client.close();
  });

  it('behavior: a batch whose answer together is over the size limit is asked again call by call; only a call too large alone fails', async () => {
    // Each answer is 400 kB of result: two fit the 1 MB limit alone but not three together.
    let batches = 0;
    const big = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string; params: [string] } | { id: number; method: string; params: [string] }[];
      const answer = (call: { id: number; params: [string] }) => ({ jsonrpc: '2.0', id: call.id, result: call.params[0] === 'huge' ? 'f'.repeat(1_200_000) : call.params[0].repeat(400_000) });
      if (Array.isArray(body)) batches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)));
    });
    await new Promise<void>((r) => big.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(big.address() as { port: number }).port}`;
    const client = createCoalescingClient(createJsonRpcClient({ url, maxResponseBytes: 1_000_000 }));
    const hashes = ['a', 'b', 'c'];
    const answers = await Promise.all(hashes.map((h) => client.call('trace_transaction', [h])));
    expect(batches).toBe(1);
    expect(answers).toEqual(hashes.map((h) => h.repeat(400_000)));
    const outcomes = await Promise.allSettled([client.call('trace_transaction', ['d']), client.call('trace_transaction', ['huge'])]);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: 'd'.repeat(400_000) });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: expect.any(UpstreamAnswerTooLargeError) });
    client.close();
    await new Promise((r) => big.close(r));
  });

  it('behavior: a node that refuses batches is asked one call at a time from then on', async () => {
    const refusing = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as unknown;
      if (Array.isArray(body)) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are disabled"}}');
      const call = body as { id: number; method: string };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: call.method }));
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(refusing.address() as { port: number }).port}`;
    const client = createCoalescingClient(createJsonRpcClient({ url }));
    expect(await Promise.all([client.call('eth_blockNumber', []), client.call('eth_chainId', [])])).toEqual(['eth_blockNumber', 'eth_chainId']);
    expect(await Promise.all([client.call('eth_blockNumber', []), client.call('eth_chainId', [])])).toEqual(['eth_blockNumber', 'eth_chainId']);
    client.close();
    await new Promise((r) => refusing.close(r));
  });
});
