// Gateway behaviour over real HTTP: batches, quotas, CORS, operations endpoints, request ids,
// log redaction, networks, mounted routes and graceful shutdown.
import { afterEach, describe, expect, it } from 'vitest';
import { defineApiRoute } from '../http/api/apiRoute.js';
import { createManualClock } from './clock.js';
import { createTestState, createTestTable } from './testing/testNamespace.js';
import { post, rpcBody, startTestGateway, type TestGateway } from './testing/startTestGateway.js';

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const HASH = '0x' + 'cd'.repeat(32);

describe('batches', () => {
  it('behavior: each element answered independently, in order, notifications left out', async () => {
    t = await startTestGateway();
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      42,
      { jsonrpc: '2.0', id: 3, method: 'nope_nope' },
      { jsonrpc: '2.0', id: 4, method: 'eth_getBalance', params: ['0x12'] },
      { jsonrpc: '1.0', id: 5, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 6, method: 'eth_chainId' },
    ]);
    const r = await post(`${t.url}/v2/${t.keys.enterprise}`, body);
    expect(r.status).toBe(200);
    const answers = r.json as Array<Record<string, unknown>>;
    expect(answers.map((a) => [a.id, 'result' in a ? a.result : (a.error as { code: number }).code])).toEqual([
      ['a', '0x18'],
      [null, -32600],
      [3, -32601],
      [4, -32602],
      [5, -32600],
      [6, '0x7a69'],
    ]);
  });

  it('behavior: a method above the tier fails only its element', async () => {
    t = await startTestGateway();
    const body = JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'trace_transaction', params: [HASH] },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber' },
    ]);
    const r = await post(`${t.url}/v2/${t.keys.free}`, body);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32003, message: 'trace_transaction requires the payg tier or higher; this API key is on the free tier', data: { requiredTier: 'payg', tier: 'free' } },
      },
      { jsonrpc: '2.0', id: 2, result: '0x18' },
    ]);
  });

  it('behavior: a batch of only notifications answers 204', async () => {
    t = await startTestGateway();
    const r = await post(`${t.url}/v2/${t.keys.enterprise}`, JSON.stringify([{ jsonrpc: '2.0', method: 'eth_blockNumber' }]));
    expect(r.status).toBe(204);
  });

  it('behavior: a batch at the default limit of 1000 is served', async () => {
    t = await startTestGateway();
    const batch = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    const r = await post(`${t.url}/v2/${t.keys.free}`, JSON.stringify(batch));
    expect(r.status).toBe(200);
    expect((r.json as unknown[]).length).toBe(1000);
    const over = await post(`${t.url}/v2/${t.keys.free}`, JSON.stringify([...batch, batch[0]]));
    expect(over.status).toBe(413);
  });
});

describe('compute-unit quota', () => {
  it('behavior: a burst over the budget answers 429 with Retry-After, accepted once the clock moves', async () => {
    const clock = createManualClock();
    t = await startTestGateway({ clock, tiers: { cuPerSecond: { free: 20 } } });
    const url = `${t.url}/v2/${t.keys.free}`;
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(200);
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(200);
    const limited = await post(url, rpcBody('eth_blockNumber', [], 9));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.json).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: 429, message: 'Your app has exceeded its compute units per second capacity.', data: { retryAfterSec: 1 } },
    });
    // Free methods never run out; other keys have their own buckets.
    expect((await post(url, rpcBody('eth_chainId'))).status).toBe(200);
    expect((await post(`${t.url}/v2/${t.keys.payg}`, rpcBody('eth_blockNumber'))).status).toBe(200);
    // 10 CU at 20 CU/s refill in 500 ms (Retry-After rounds up to whole seconds).
    clock.advance(499);
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(429);
    clock.advance(1);
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(200);
  });

  it('behavior: a batch is charged as a whole and refused as a whole', async () => {
    const clock = createManualClock();
    t = await startTestGateway({ clock, tiers: { cuPerSecond: { free: 25 } } });
    const url = `${t.url}/v2/${t.keys.free}`;
    const two = JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber' })));
    expect((await post(url, two)).status).toBe(200);
    // 5 CU left of 25; 20 needed: 0.6 s at 25 CU/s.
    const refused = await post(url, two);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ id: null, error: { code: 429 } });
    expect(refused.headers.get('retry-after')).toBe('1');
  });

  it('behavior: after a real wait of Retry-After seconds the request is accepted', async () => {
    t = await startTestGateway({ tiers: { cuPerSecond: { free: 10 } } });
    const url = `${t.url}/v2/${t.keys.free}`;
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(200);
    const limited = await post(url, rpcBody('eth_blockNumber'));
    expect(limited.status).toBe(429);
    const waitSec = Number(limited.headers.get('retry-after'));
    expect(waitSec).toBe(1);
    await new Promise((r) => setTimeout(r, waitSec * 1000));
    expect((await post(url, rpcBody('eth_blockNumber'))).status).toBe(200);
  });

  it('behavior: enterprise keys are unlimited by default', async () => {
    t = await startTestGateway({ tiers: { cuPerSecond: { free: 10, payg: 10 } } });
    const batch = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_blockNumber' })));
    for (let i = 0; i < 5; i++) expect((await post(`${t.url}/v2/${t.keys.enterprise}`, batch)).status).toBe(200);
  });
});

describe('CORS', () => {
  it('default: any origin, preflight answered without a key check', async () => {
    t = await startTestGateway();
    const pre = await fetch(`${t.url}/v2/${t.keys.free}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://x.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,alchemy-ethers-sdk-version' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toBe('content-type,alchemy-ethers-sdk-version');
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    const r = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_chainId'), { 'content-type': 'application/json', origin: 'https://x.example' });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('args: a list of origins is echoed only for those origins', async () => {
    t = await startTestGateway({ cors: { origins: ['https://ok.example'] } });
    const ok = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_chainId'), { 'content-type': 'application/json', origin: 'https://ok.example' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://ok.example');
    expect(ok.headers.get('vary')).toBe('Origin');
    const other = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_chainId'), { 'content-type': 'application/json', origin: 'https://no.example' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS of the management API', () => {
  const preflight = (url: string, origin: string) =>
    fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-service-token,content-type' } });

  it('default: a preflight on /api from any site is not approved (no X-Service-Token from other origins)', async () => {
    t = await startTestGateway();
    for (const path of ['/api/keys', '/api/create-webhook', '/metrics']) {
      const pre = await preflight(`${t.url}${path}`, 'https://evil.example');
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      expect(pre.headers.get('access-control-allow-headers')).toBeNull();
      expect(pre.headers.get('access-control-allow-methods')).toBeNull();
    }
    const answer = await fetch(`${t.url}/api/keys`, { headers: { origin: 'https://evil.example', 'x-service-token': t.authToken } });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    // The JSON-RPC endpoint keeps its own CORS (any origin by default).
    expect((await preflight(`${t.url}/v2/${t.keys.free}`, 'https://evil.example')).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('args: apiCors origins are approved on /api, others still not', async () => {
    t = await startTestGateway({ apiCors: { origins: ['https://admin.example'] }, cors: { origins: ['https://dapp.example'] } });
    const ok = await preflight(`${t.url}/api/keys`, 'https://admin.example');
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://admin.example');
    expect(ok.headers.get('access-control-allow-headers')).toBe('x-service-token,content-type');
    const answer = await fetch(`${t.url}/api/keys`, { headers: { origin: 'https://admin.example', 'x-service-token': t.authToken } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://admin.example');
    expect((await preflight(`${t.url}/api/keys`, 'https://dapp.example')).headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(`${t.url}/v2/${t.keys.free}`, 'https://admin.example')).headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(`${t.url}/v2/${t.keys.free}`, 'https://dapp.example')).headers.get('access-control-allow-origin')).toBe('https://dapp.example');
  });
});

describe('operations', () => {
  it('default: /healthz, /readyz and /metrics', async () => {
    let chainReady = true;
    t = await startTestGateway({ readinessChecks: [{ name: 'chain', check: () => chainReady }] });
    expect(await (await fetch(`${t.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { store: 'ok', 'network:mainnet': 'ok', chain: 'ok' } });
    chainReady = false;
    const notReady = await fetch(`${t.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ status: 'not ready', checks: { chain: 'failing' } });

    await post(`${t.url}/v2/${t.keys.payg}`, rpcBody('eth_blockNumber'));
    await post(`${t.url}/v2/${t.keys.payg}`, rpcBody('trace_transaction', [HASH]));
    await post(`${t.url}/v2/${t.keys.payg}`, rpcBody('bogus_method_name'));
    const metrics = await fetch(`${t.url}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await metrics.text();
    expect(text).toContain('tracehook_rpc_calls_total{network="mainnet",method="eth_blockNumber",code="0"} 1');
    expect(text).toContain('tracehook_rpc_calls_total{network="mainnet",method="other",code="-32601"} 1');
    expect(text).toContain('tracehook_rpc_errors_total{network="mainnet",method="other",code="-32601"} 1');
    expect(text).toContain('tracehook_compute_units_total{tier="payg"} 50');
    expect(text).toMatch(/tracehook_trace_duration_seconds_count\{method="trace_transaction"\} 1/);
    expect(text).toContain('tracehook_http_responses_total{route="rpc",status="200"} 3');
    expect(text).not.toContain('bogus_method_name');
  });

  it('error: a store failure during key lookup answers 503 with Retry-After, not 200', async () => {
    t = await startTestGateway();
    await t.db.close();
    const r = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_blockNumber', [], 3));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.json).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Service temporarily unavailable: API keys cannot be checked; retry in 5 s', data: { retryAfterSec: 5 } },
    });
    await t.gateway.close();
    t = undefined;
  });

  it('args: /metrics can require the auth token', async () => {
    t = await startTestGateway({ metricsRequireToken: true });
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { 'x-service-token': t.authToken } })).status).toBe(200);
  });

  it('default: every answer has a request id; a sane incoming one is kept', async () => {
    t = await startTestGateway();
    const generated = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_chainId'));
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    const kept = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_chainId'), { 'content-type': 'application/json', 'x-request-id': 'trace-abc.123' });
    expect(kept.headers.get('x-request-id')).toBe('trace-abc.123');
    const replaced = await post(`${t.url}/v2/${t.keys.free}`, rpcBody('eth_chainId'), { 'content-type': 'application/json', 'x-request-id': 'bad id\u00ff' });
    expect(replaced.headers.get('x-request-id')).not.toContain('bad');
    const unauthorized = await post(`${t.url}/v2/nope-nope-nope`, rpcBody('eth_chainId'));
    expect(unauthorized.headers.get('x-request-id')).toBeTruthy();
  });

  it('behavior: access logs carry the request id and never an API key or token', async () => {
    t = await startTestGateway();
    const r = await post(`${t.url}/v2/${t.keys.payg}`, rpcBody('eth_chainId'));
    await post(`${t.url}/mainnet/v2/${t.keys.free}`, rpcBody('eth_chainId'));
    await post(`${t.url}/v2/WrongKey12345678`, rpcBody('eth_chainId'));
    await fetch(`${t.url}/api/keys`, { headers: { 'x-service-token': t.authToken } });
    const line = t.logs.find((l) => l.reqId === r.headers.get('x-request-id'));
    expect(line).toMatchObject({ msg: 'request', path: '/v2/***', status: 200, rpc: 'eth_chainId' });
    const text = t.logText();
    for (const secret of [...Object.values(t.keys), 'WrongKey12345678', t.authToken]) expect(text).not.toContain(secret);
  });
});

describe('log redaction', () => {
  it('behavior: a key or token in any path or query never reaches the log; route words do', async () => {
    t = await startTestGateway();
    await fetch(`${t.url}/foo/${t.keys.free}`);
    await post(`${t.url}/${t.keys.payg}/v2/${t.keys.payg}`, rpcBody('eth_chainId'));
    await fetch(`${t.url}/api/keys?token=${t.authToken}`);
    await fetch(`${t.url}/api/${t.authToken}/x`, { method: 'POST' });
    await post(`${t.url}/v2/${t.keys.enterprise}/?token=${t.authToken}`, rpcBody('eth_chainId'));
    await post(`${t.url}/mainnet/v2/${t.keys.free}`, rpcBody('eth_chainId'));
    const text = t.logText();
    for (const secret of [...Object.values(t.keys), t.authToken]) expect(text).not.toContain(secret);
    const paths = t.logs.filter((l) => l.msg === 'request').map((l) => l.path);
    expect(paths).toEqual(['/***/***', '/***/v2/***', '/api/keys?***', '/api/***/***', '/v2/***/?***', '/mainnet/v2/***']);
  });
});

describe('routing', () => {
  it('behavior: several networks, the first also at /v2', async () => {
    const stateB = { ...createTestState(), chainId: 11155111n, blockNumber: 5n };
    t = await startTestGateway({
      networks: [
        { name: 'mainnet', table: createTestTable() },
        { name: 'sepolia', table: createTestTable(stateB) },
      ],
    });
    const chainId = async (path: string) => ((await post(`${t!.url}${path}/v2/${t!.keys.free}`, rpcBody('eth_chainId'))).json as { result: string }).result;
    expect(await chainId('')).toBe('0x7a69');
    expect(await chainId('/mainnet')).toBe('0x7a69');
    expect(await chainId('/sepolia')).toBe('0xaa36a7');
  });

  it('behavior: a network path matches its configured name case-insensitively and with - for _; logs keep the segment as sent', async () => {
    const stateB = { ...createTestState(), chainId: 1n };
    t = await startTestGateway({
      networks: [
        { name: 'LOCAL', table: createTestTable() },
        { name: 'ETH_MAINNET', table: createTestTable(stateB) },
      ],
    });
    const chainId = async (path: string) => (await post(`${t!.url}${path}/v2/${t!.keys.free}`, rpcBody('eth_chainId'))).json as { result?: string; error?: { message: string } };
    for (const path of ['/ETH_MAINNET', '/eth_mainnet', '/eth-mainnet', '/Eth-Mainnet']) expect(await chainId(path)).toMatchObject({ result: '0x1' });
    for (const path of ['', '/local', '/LOCAL']) expect(await chainId(path)).toMatchObject({ result: '0x7a69' });
    expect(await chainId('/eth-mainnet2')).toMatchObject({ error: { message: 'Unknown network eth-mainnet2; served: LOCAL, ETH_MAINNET' } });
    const paths = t.logs.filter((l) => l.msg === 'request').map((l) => l.path);
    expect(paths.slice(0, 4)).toEqual(['/ETH_MAINNET/v2/***', '/eth_mainnet/v2/***', '/eth-mainnet/v2/***', '/Eth-Mainnet/v2/***']);
    expect(paths.at(-1)).toBe('/***/v2/***');
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toContain('tracehook_rpc_calls_total{network="ETH_MAINNET",method="eth_chainId",code="0"} 4');
  });

  it('error: two networks whose names differ only in case or _/- are refused', async () => {
    await expect(startTestGateway({ networks: [{ name: 'ETH_MAINNET', table: createTestTable() }, { name: 'eth-mainnet', table: createTestTable() }] })).rejects.toThrow(
      'network names must be unique (compared case-insensitively, with - for _)',
    );
    await expect(startTestGateway({ networks: [{ name: 'API', table: createTestTable() }] })).rejects.toThrow('invalid network name "API"');
  });

  it('behavior: a pass-through backend takes methods no listed backend serves', async () => {
    const upstream = {
      name: 'upstream',
      handles: () => true,
      call: async (method: string) => `upstream:${method}`,
    };
    t = await startTestGateway({ networks: [{ name: 'mainnet', table: createTestTable(), passThrough: upstream }] });
    const url = `${t.url}/v2/${t.keys.free}`;
    expect((await post(url, rpcBody('eth_chainId'))).json).toMatchObject({ result: '0x7a69' });
    expect((await post(url, rpcBody('eth_getLogs', [{}]))).json).toMatchObject({ result: 'upstream:eth_getLogs' });
  });

  it('behavior: an upstream network (pass-through only) takes every method, priced by the cost table (unlisted at its default, counted as other)', async () => {
    const upstream = { name: 'upstream', handles: () => true, call: async (method: string) => `upstream:${method}` };
    t = await startTestGateway({ networks: [{ name: 'ETH_MAINNET', passThrough: upstream }] });
    const url = `${t.url}/eth-mainnet/v2/${t.keys.payg}`;
    for (const method of ['anvil_nodeInfo', 'eth_getLogs', 'trace_block']) expect((await post(url, rpcBody(method, []))).json).toMatchObject({ result: `upstream:${method}` });
    expect((await post(`${t.url}/v2/${t.keys.free}`, rpcBody('trace_block', []))).json).toMatchObject({ error: { message: 'trace_block requires the payg tier or higher; this API key is on the free tier' } });
    await t.gateway.close();
    const usage = await t.repo.usage(t.keyIds.payg, '2000-01-01', '2999-01-01');
    // Usage rows keep bounded names, as metric labels do: a method the cost table does not list is `other`.
    expect(usage.map((u) => [u.method, u.computeUnits]).sort()).toEqual([['eth_getLogs', 75], ['other', 20], ['trace_block', 50]]);
  });

  it('behavior: mounted API routes get the /api prefix, the token check and the request id; /api/keys stays with the keys API', async () => {
    const seen: string[] = [];
    const route = defineApiRoute({
      method: 'GET',
      path: '/webhooks',
      operationId: 'webhooks',
      summary: 'test route',
      tag: 'test',
      response: { type: 'object' },
      async handle({ requestId }) {
        seen.push(`/webhooks ${requestId.length > 0}`);
        return { ok: true };
      },
    });
    t = await startTestGateway({ apiRoutes: [route] });
    const headers = { 'x-service-token': t.authToken };
    expect((await fetch(`${t.url}/api/webhooks`, { headers })).status).toBe(200);
    expect((await fetch(`${t.url}/api/webhooks`)).status).toBe(401);
    expect((await fetch(`${t.url}/api/keys`)).status).toBe(401);
    expect((await fetch(`${t.url}/api/keys`, { headers })).status).toBe(200);
    expect((await fetch(`${t.url}/apix`)).status).toBe(404);
    expect(seen).toEqual(['/webhooks true']);
  });

  it('error: unknown paths answer 404 JSON', async () => {
    t = await startTestGateway();
    const r = await fetch(`${t.url}/nothing/here`);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: { message: 'Not found: /nothing/here. JSON-RPC is served at POST /v2/<API_KEY>' } });
  });
});

describe('shutdown', () => {
  it('behavior: close lets in-flight requests finish and flushes usage', async () => {
    t = await startTestGateway();
    const slow = post(`${t.url}/v2/${t.keys.payg}`, rpcBody('test_sleep', [300]));
    while (t.state.sleeping === 0) await new Promise((r) => setTimeout(r, 5));
    const closed = t.gateway.close();
    const answer = await slow;
    expect(answer.json).toMatchObject({ result: 'slept' });
    await closed;
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
    const usage = await t.repo.usage(t.keyIds.payg, '2000-01-01', '2999-01-01');
    expect(usage).toEqual([expect.objectContaining({ method: 'test_sleep', requests: 1, computeUnits: 20 })]);
    await t.db.close();
    t = undefined;
  });
});

describe('matchRpcPath', () => {
  it('args: accepted and refused endpoint paths', async () => {
    const { matchRpcPath } = await import('./app.js');
    const { createNetworkRouter } = await import('./router/networkRouter.js');
    const main = createNetworkRouter({ name: 'mainnet', table: createTestTable() });
    const sepolia = createNetworkRouter({ name: 'sepolia', table: createTestTable() });
    const nets = new Map([
      [main.key, main],
      [sepolia.key, sepolia],
    ]);
    const m = (p: string) => {
      const r = matchRpcPath(p, nets, main);
      if (!r) return 'none';
      return 'unknownNetwork' in r ? `unknown:${r.unknownNetwork}` : `${r.network.name}:${r.apiKey ?? '-'}`;
    };
    expect(['/v2', '/v2/', '/v2/K', '/v2/K/', '/v2/K/x', '/v2x', '/sepolia/v2/K', '/sepolia/v2', '/sepolia/v2x', '/goerli/v2/K', '/api/keys', '/a/b/v2/K', '/'].map(m)).toEqual([
      'mainnet:-',
      'mainnet:-',
      'mainnet:K',
      'mainnet:K',
      'none',
      'none',
      'sepolia:K',
      'sepolia:-',
      'none',
      'unknown:goerli',
      'none',
      'none',
      'none',
    ]);
  });
});
