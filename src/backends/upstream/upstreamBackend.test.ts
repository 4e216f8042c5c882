// The upstream backend against a real anvil: calls and batches forwarded as they are, alone and
// behind the gateway as its pass-through backend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { post, startTestGateway, type TestGateway } from '../../gateway/testing/startTestGateway.js';
import { createTestTable } from '../../gateway/testing/testNamespace.js';
import { MethodNotFoundError, UpstreamConnectionError } from '../../rpc/errors.js';
import { createUpstreamBackend, type UpstreamBackend } from './upstreamBackend.js';

let anvil: AnvilProcess;
let backend: UpstreamBackend;
const ctx = { requestId: 'test', signal: new AbortController().signal };

beforeAll(async () => {
  anvil = await startAnvil();
  backend = createUpstreamBackend({ url: anvil.url, name: 'anvil' });
}, 30_000);
afterAll(async () => {
  backend?.close();
  await anvil?.stop();
});

describe('upstream backend (real anvil)', () => {
  it('default: forwards one call and answers with the node\'s result', async () => {
    expect(backend.handles('any_method')).toBe(true);
    expect(await backend.call('eth_chainId', [], ctx)).toBe('0x7a69');
  });

  it('behavior: forwards a batch as one, with results and node errors per call in order', async () => {
    const accounts = (await backend.call('eth_accounts', [], ctx)) as string[];
    const outcomes = await backend.callBatch!(
      [
        { method: 'eth_getBalance', params: [accounts[0], 'latest'] },
        { method: 'no_suchMethod', params: [] },
        { method: 'eth_blockNumber', params: [] },
      ],
      ctx,
    );
    expect(outcomes[0]).toEqual({ ok: true, result: '0x21e19e0c9bab2400000' });
    expect(outcomes[1]!.ok).toBe(false);
    expect(!outcomes[1]!.ok && outcomes[1]!.error).toBeInstanceOf(MethodNotFoundError);
    expect(outcomes[2]).toEqual({ ok: true, result: '0x0' });
  });

  it('behavior: behind the gateway, a batch mixing local and forwarded methods answers both', async () => {
    let t: TestGateway | undefined;
    try {
      t = await startTestGateway({ networks: [{ name: 'mainnet', table: createTestTable(), passThrough: backend }] });
      const body = [
        { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x0', false] },
        { jsonrpc: '2.0', id: 2, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 3, method: 'anvil_nodeInfo', params: [] },
      ];
      const r = (await post(`${t.url}/v2/${t.keys.free}`, JSON.stringify(body))).json as { id: number; result: Record<string, unknown> }[];
      expect(r.map((a) => a.id)).toEqual([1, 2, 3]);
      expect(r[0]!.result).toMatchObject({ number: '0x0' });
      expect(r[1]!.result).toBe('0x7a69');
      expect(r[2]!.result).toHaveProperty('currentBlockNumber');
    } finally {
      await t?.close();
    }
  });

  it('error: a stopped node is a retryable connection error', async () => {
    const other = await startAnvil();
    const gone = createUpstreamBackend({ url: other.url, name: 'gone' });
    await other.stop();
    const error = await gone.call('eth_chainId', [], ctx).catch((e: unknown) => e);
    gone.close();
    expect(error).toBeInstanceOf(UpstreamConnectionError);
    expect(error).toMatchObject({ retryable: true });
  });
});
