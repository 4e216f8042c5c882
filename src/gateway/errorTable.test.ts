// Every row of the README error table, over real HTTP against a real gateway and store.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rpcBody, startTestGateway, type TestGateway } from './testing/startTestGateway.js';
import { createApiKey } from './keys/apiKeys.js';

let t: TestGateway;
let v2: (tier?: 'free' | 'payg' | 'enterprise') => string;

beforeAll(async () => {
  t = await startTestGateway({ limits: { maxBodyBytes: 64 * 1024, maxBatchSize: 20, requestTimeoutMs: 300 } });
  v2 = (tier = 'enterprise') => `${t.url}/v2/${t.keys[tier]}`;
});
afterAll(async () => t.close());

const ADDRESS = '0x00000000000000000000000000000000000000aa';

describe('error table over HTTP', () => {
  it('error: missing key answers 401', async () => {
    const r = await post(`${t.url}/v2/`, rpcBody('eth_blockNumber'));
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Must be authenticated! Missing API key: send requests to /v2/<API_KEY>' } });
  });

  it('error: unknown key answers 401', async () => {
    const r = await post(`${t.url}/v2/NoSuchKey0000000000000000000000`, rpcBody('eth_blockNumber'));
    expect(r.status).toBe(401);
    expect(r.json).toMatchObject({ error: { code: -32001, message: 'Must be authenticated! Unknown API key' } });
  });

  it('error: a key with characters no key can have answers 401 without a lookup', async () => {
    const r = await post(`${t.url}/v2/%00%ff`, rpcBody('eth_blockNumber'));
    expect(r.status).toBe(401);
  });

  it('error: revoked key answers 403', async () => {
    const { record, apiKey } = await createApiKey(t.repo, { name: 'to revoke', tier: 'enterprise' });
    expect((await post(`${t.url}/v2/${apiKey}`, rpcBody('eth_blockNumber'))).status).toBe(200);
    await t.repo.revoke(record.id, Date.now());
    t.gateway.keyCache.invalidate(record.id);
    const r = await post(`${t.url}/v2/${apiKey}`, rpcBody('eth_blockNumber'));
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ error: { code: -32003, message: 'API key is inactive (revoked)' } });
  });

  it('error: origin not allowed answers 403, an allowed origin passes', async () => {
    const { apiKey } = await createApiKey(t.repo, { name: 'web', tier: 'payg', allowedOrigins: ['https://app.example'] });
    const url = `${t.url}/v2/${apiKey}`;
    const denied = await post(url, rpcBody('eth_blockNumber'), { 'content-type': 'application/json', origin: 'https://evil.example' });
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ error: { code: -32003, message: 'Origin https://evil.example is not allowed for this API key' } });
    const noOrigin = await post(url, rpcBody('eth_blockNumber'));
    expect(noOrigin.status).toBe(403);
    const allowed = await post(url, rpcBody('eth_blockNumber'), { 'content-type': 'application/json', origin: 'https://app.example' });
    expect(allowed.status).toBe(200);
  });

  it('error: method above the key tier answers 403 naming the required tier', async () => {
    const r = await post(v2('free'), rpcBody('trace_transaction', ['0x' + 'ab'.repeat(32)], 7));
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32003,
        message: 'trace_transaction requires the payg tier or higher; this API key is on the free tier',
        data: { requiredTier: 'payg', tier: 'free' },
      },
    });
    const payg = await post(v2('payg'), rpcBody('trace_transaction', ['0x' + 'ab'.repeat(32)], 7));
    expect(payg.status).toBe(200);
    expect(payg.json).toEqual({ jsonrpc: '2.0', id: 7, result: [] });
  });

  it('error: body over the limit answers 413', async () => {
    const r = await post(v2(), rpcBody('eth_getBalance', ['0x' + '0'.repeat(70_000)]));
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Request body exceeds the limit of 65536 bytes' } });
  });

  it('error: batch over the limit answers 413', async () => {
    const batch = Array.from({ length: 21 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_blockNumber' }));
    const r = await post(v2(), JSON.stringify(batch));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ id: null, error: { code: -32600, message: 'Batch of 21 requests exceeds the limit of 20' } });
  });

  it('error: malformed JSON answers 400 with -32700', async () => {
    const r = await post(v2(), '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber",');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect((r.json as { error: { message: string } }).error.message).toMatch(/^Parse error: invalid JSON \(/);
  });

  it('error: invalid request answers 400 with -32600 naming the member', async () => {
    const wrongVersion = await post(v2(), JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'eth_blockNumber' }));
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.json).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid request: "jsonrpc" must be exactly "2.0"' } });
    const noMethod = await post(v2(), JSON.stringify({ jsonrpc: '2.0', id: 3 }));
    expect(noMethod.json).toMatchObject({ error: { message: 'Invalid request: "method" must be a non-empty string' } });
    const scalar = await post(v2(), '42');
    expect(scalar.status).toBe(400);
    expect(scalar.json).toMatchObject({ error: { code: -32600, message: 'Invalid request: expected a request object or a batch array, got a number' } });
  });

  it('error: empty batch answers one -32600 object', async () => {
    const r = await post(v2(), '[]');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: empty batch' } });
  });

  it('error: unknown method answers 200 with -32601', async () => {
    const r = await post(v2(), rpcBody('eth_foo', [], 'x'));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'Unsupported method: eth_foo' } });
  });

  it('error: invalid params answer 200 with -32602 naming the parameter', async () => {
    const r = await post(v2(), rpcBody('eth_getBalance', ['0x1234']));
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'eth_getBalance: invalid argument 0 (address): expected a 20-byte hex address' },
    });
    const block = await post(v2(), rpcBody('eth_getBalance', [ADDRESS, '0x01']));
    expect(block.json).toMatchObject({ error: { code: -32602 } });
    expect((block.json as { error: { message: string } }).error.message).toContain('argument 1 (block)');
  });

  it('error: internal failure answers -32603 with the request id and nothing internal', async () => {
    const r = await post(v2(), rpcBody('test_fail'));
    expect(r.status).toBe(200);
    const requestId = r.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: `Internal error (request id ${requestId})`, data: { requestId } },
    });
    expect(r.text).not.toContain('hunter2');
    expect(r.text).not.toContain('/srv');
    const logged = t.logs.find((l) => l.reqId === requestId && l.msg === 'internal error in a JSON-RPC call');
    expect(logged).toBeTruthy();
  });

  it('error: GET answers 405 with a JSON-RPC body', async () => {
    const res = await fetch(v2());
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'HTTP method GET is not allowed: send JSON-RPC requests with POST' } });
  });

  it('error: a non-JSON content type answers 415', async () => {
    const r = await post(v2(), rpcBody('eth_blockNumber'), { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ error: { code: -32600, message: 'Unsupported Content-Type text/plain: use application/json' } });
  });

  it('error: a body that trickles in too slowly answers 408', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(v2(), { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '100' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write('{"jsonrpc":');
    });
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request: request not received in time' } });
  });

  it('error: an unknown network answers 404', async () => {
    const r = await post(`${t.url}/sepolia/v2/${t.keys.enterprise}`, rpcBody('eth_blockNumber'));
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ error: { code: -32601, message: 'Unknown network sepolia; served: mainnet' } });
  });

  it('default: a notification answers 204 with no body', async () => {
    const r = await post(v2(), JSON.stringify({ jsonrpc: '2.0', method: 'eth_blockNumber' }));
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });
});
