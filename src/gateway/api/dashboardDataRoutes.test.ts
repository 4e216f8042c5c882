// GET /api/networks and POST /api/trace on a real gateway (the test chain's method table): heads
// as the network's backend answers them, and trace requests refused with the field named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../testing/startTestGateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ dashboard: { dir: '/nonexistent' } });
});
afterAll(async () => gw?.close());

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${gw.url}/api${path}`, { method, headers: { 'content-type': 'application/json', 'x-service-token': gw.authToken }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as { data?: unknown; message?: string; field?: string } };
}

describe('dashboard data routes', () => {
  it("default: /api/networks gives each network's chain id and head block from its backend, following the chain", async () => {
    gw.state.blockNumber = 41n;
    expect((await call('GET', '/networks')).json.data).toEqual([{ network: 'mainnet', path: '/mainnet/v2/', chain_id: '0x7a69', head_block: '0x29', error: null }]);
    gw.state.blockNumber = 42n;
    expect((await call('GET', '/networks')).json.data).toMatchObject([{ head_block: '0x2a' }]);
  });

  it('error: /api/trace refuses what is not a trace method, an unknown network and a method the network does not serve, naming the field', async () => {
    expect(await call('POST', '/trace', { method: 'eth_sendRawTransaction', params: ['0x00'] })).toMatchObject({ status: 400, json: { field: 'method' } });
    expect(await call('POST', '/trace', { network: 'nowhere', method: 'debug_traceTransaction', params: [] })).toMatchObject({ status: 404, json: { field: 'network', message: 'network: no network nowhere' } });
    expect(await call('POST', '/trace', { method: 'debug_traceTransaction', params: [] })).toMatchObject({ status: 400, json: { field: 'method', message: 'method: debug_traceTransaction is not served on mainnet' } });
    expect(await call('POST', '/trace', { method: 'trace_call', params: 'x' })).toMatchObject({ status: 400, json: { field: 'params' } });
    const doc = (await (await fetch(`${gw.url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/networks', '/trace', '/session', '/auth-token']));
  });
});
