// The keys management API over real HTTP: token auth, create/list/show/revoke, usage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rpcBody, startTestGateway, type TestGateway } from '../testing/startTestGateway.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(async () => t.close());

function api(path: string, init: RequestInit = {}, token: string | null = t.authToken) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers['x-service-token'] = token;
  return fetch(`${t.url}/api/keys${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
}

describe('keys management API', () => {
  it('error: refuses requests without the right token', async () => {
    expect((await api('', {}, null)).status).toBe(401);
    const wrong = await api('', {}, 'not-the-token');
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: { code: 'unauthorized', message: 'missing or wrong auth token (X-Service-Token header)' } });
  });

  it('default: creates a key whose secret is shown once and works on /v2', async () => {
    const res = await api('', { method: 'POST', body: JSON.stringify({ name: 'team a', tier: 'payg', allowedOrigins: ['https://a.example'] }) });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { key: Record<string, unknown>; apiKey: string };
    expect(created.apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(created.key).toMatchObject({ name: 'team a', tier: 'payg', active: true, keyPrefix: created.apiKey.slice(0, 6), allowedOrigins: ['https://a.example'], lastUsedAt: null });
    const listed = (await (await api('')).json()) as { keys: Array<Record<string, unknown>> };
    expect(listed.keys.find((k) => k.id === created.key.id)).toEqual(created.key);
    expect(JSON.stringify(listed)).not.toContain(created.apiKey);
    const shown = (await (await api(`/${created.key.id as string}`)).json()) as { key: unknown };
    expect(shown.key).toEqual(created.key);
    const call = await post(`${t.url}/v2/${created.apiKey}`, rpcBody('eth_chainId'), { 'content-type': 'application/json', origin: 'https://a.example' });
    expect(call.status).toBe(200);
  });

  it('default: the alchemy-style X-Alchemy-Token header works too', async () => {
    const res = await fetch(`${t.url}/api/keys`, { headers: { 'x-alchemy-token': t.authToken } });
    expect(res.status).toBe(200);
  });

  it('behavior: revoke takes effect at once for a cached key', async () => {
    const created = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'short-lived' }) })).json()) as { key: { id: string; tier: string }; apiKey: string };
    expect(created.key.tier).toBe('free');
    const url = `${t.url}/v2/${created.apiKey}`;
    expect((await post(url, rpcBody('eth_chainId'))).status).toBe(200);
    const revoked = await api(`/${created.key.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ key: { id: created.key.id, active: false } });
    expect((await post(url, rpcBody('eth_chainId'))).status).toBe(403);
  });

  it('behavior: usage per day and method, with last-used', async () => {
    const created = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'metered', tier: 'payg' }) })).json()) as { key: { id: string }; apiKey: string };
    const url = `${t.url}/v2/${created.apiKey}`;
    await post(url, rpcBody('eth_blockNumber'));
    await post(url, rpcBody('eth_blockNumber'));
    await post(url, rpcBody('trace_transaction', ['0x' + '11'.repeat(32)]));
    await post(url, rpcBody('no_such_method'));
    const res = await api(`/${created.key.id}/usage`);
    expect(res.status).toBe(200);
    const usage = (await res.json()) as { totals: unknown; days: Array<{ methods: unknown; requests: number }>; from: string; to: string };
    expect(usage.totals).toEqual({ requests: 3, computeUnits: 60 });
    expect(usage.days).toHaveLength(1);
    expect(usage.days[0]!.methods).toEqual({ eth_blockNumber: { requests: 2, computeUnits: 20 }, trace_transaction: { requests: 1, computeUnits: 40 } });
    expect(usage.to > usage.from).toBe(true);
    const shown = (await (await api(`/${created.key.id}`)).json()) as { key: { lastUsedAt: string | null } };
    expect(shown.key.lastUsedAt).not.toBeNull();
  });

  it('error: bad bodies, unknown ids, bad queries and wrong methods', async () => {
    const bad = await api('', { method: 'POST', body: JSON.stringify({ name: '', tier: 'gold' }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_body' } });
    const origin = await api('', { method: 'POST', body: JSON.stringify({ name: 'x', allowedOrigins: ['not an origin'] }) });
    expect(await origin.json()).toMatchObject({ error: { message: 'allowedOrigins.0: expected an origin such as https://app.example.com' } });
    expect((await api('', { method: 'POST', body: '{' })).status).toBe(400);
    expect((await api('/key_nope')).status).toBe(404);
    expect((await api('/key_nope/revoke', { method: 'POST' })).status).toBe(404);
    expect((await api(`/${t.keyIds.free}/usage?from=yesterday`)).status).toBe(400);
    expect((await api(`/${t.keyIds.free}/usage?from=2026-02-01&to=2026-01-01`)).status).toBe(400);
    expect((await api('', { method: 'DELETE' })).status).toBe(405);
    expect((await api(`/${t.keyIds.free}/revoke`)).status).toBe(405);
    expect((await api('/%E0%A4%A')).status).toBe(400);
  });
});
