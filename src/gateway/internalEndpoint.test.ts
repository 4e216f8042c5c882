// The internal endpoint on a real gateway: served only when configured, only for its network, only
// with the service's auth token (the token never echoed or logged), without compute units, and on
// the extra loopback listener of `--processes` too.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_AUTH_TOKEN, type TestGateway } from './testing/startTestGateway.js';
import { matchInternalPath } from './internalEndpoint.js';

const batch = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_blockNumber', params: [] })));

async function post(url: string, body: string, token?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { 'x-service-token': token }) }, body });
  return { status: res.status, text: await res.text() };
}

describe('internal endpoint', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('args: the path names the network in any spelling, nothing else', () => {
    expect(matchInternalPath('/internal/ETH_MAINNET', 'eth-mainnet')).toBe(true);
    expect(matchInternalPath('/internal/eth-mainnet/', 'ETH_MAINNET')).toBe(true);
    expect(matchInternalPath('/internal/other', 'ETH_MAINNET')).toBe(false);
    expect(matchInternalPath('/internal/ETH_MAINNET/x', 'ETH_MAINNET')).toBe(false);
    expect(matchInternalPath('/v2/internal', 'ETH_MAINNET')).toBe(false);
  });

  it('default: a gateway without the internal option does not serve the path', async () => {
    gw = await startTestGateway();
    expect((await post(`${gw.url}/internal/mainnet`, batch(1), TEST_AUTH_TOKEN)).status).toBe(404);
  });

  it('error: a missing or wrong credential is 401 (-32001), the token never echoed nor logged', async () => {
    gw = await startTestGateway({ internal: { token: TEST_AUTH_TOKEN, network: 'mainnet' } });
    const missing = await post(`${gw.url}/internal/mainnet`, batch(1));
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text)).toMatchObject({ error: { code: -32001 } });
    const wrong = await post(`${gw.url}/internal/mainnet`, batch(1), `${TEST_AUTH_TOKEN.slice(0, -1)}x`);
    expect(wrong.status).toBe(401);
    // An API key is not the internal credential either.
    expect((await post(`${gw.url}/internal/mainnet`, batch(1), gw.keys.enterprise)).status).toBe(401);
    expect(wrong.text).not.toContain(TEST_AUTH_TOKEN.slice(0, 10));
    expect(gw.logText()).not.toContain(TEST_AUTH_TOKEN);
  });

  it('behavior: with the token, a batch over the key\'s compute units is answered whole (unmetered), on the main and the extra listener', async () => {
    gw = await startTestGateway({ internal: { token: TEST_AUTH_TOKEN, network: 'mainnet' }, tiers: { cuPerSecond: { enterprise: 5 } } });
    // The same batch (50 calls of 10 CU) on the public endpoint is over the enterprise key's budget.
    const metered = await post(`${gw.url}/v2/${gw.keys.enterprise}`, batch(50));
    expect(metered.status).toBe(429);
    const internal = await post(`${gw.url}/internal/MAINNET`, batch(50), TEST_AUTH_TOKEN);
    expect(internal.status).toBe(200);
    const answers = JSON.parse(internal.text) as { result?: string }[];
    expect(answers).toHaveLength(50);
    expect(answers.every((a) => typeof a.result === 'string')).toBe(true);
    const extra = await gw.gateway.listenInternal('127.0.0.1', 0);
    const again = await post(`${extra.url}/internal/mainnet`, batch(2), TEST_AUTH_TOKEN);
    expect(again.status).toBe(200);
    expect((await post(`${extra.url}/internal/mainnet`, batch(2), 'nope')).status).toBe(401);
  });
});
