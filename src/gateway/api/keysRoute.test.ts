// The keys management API over real HTTP: token auth, create/list/show/revoke, usage, with the
// webhooks API's conventions (snake_case, `{data}`, `{message, field?}`).
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
    expect(await wrong.json()).toEqual({ message: 'Unauthenticated: send the auth token in the X-Service-Token header' });
  });

  it('default: creates a key whose secret is shown once and works on /v2', async () => {
    const res = await api('', { method: 'POST', body: JSON.stringify({ name: 'team a', tier: 'payg', allowed_origins: ['https://a.example'] }) });
    expect(res.status).toBe(201);
    const { data: created } = (await res.json()) as { data: Record<string, unknown> & { api_key: string; id: string } };
    expect(created.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(created).toMatchObject({ name: 'team a', tier: 'payg', active: true, key_prefix: created.api_key.slice(0, 6), allowed_origins: ['https://a.example'], last_used_at: null, revoked_at: null });
    const { api_key: secret, ...view } = created;
    const listed = (await (await api('')).json()) as { data: Array<Record<string, unknown>> };
    expect(listed.data.find((k) => k.id === created.id)).toEqual(view);
    expect(JSON.stringify(listed)).not.toContain(secret);
    const shown = (await (await api(`/${created.id}`)).json()) as { data: unknown };
    expect(shown.data).toEqual(view);
    const call = await post(`${t.url}/v2/${secret}`, rpcBody('eth_chainId'), { 'content-type': 'application/json', origin: 'https://a.example' });
    expect(call.status).toBe(200);
  });

  it('default: the alchemy-style X-Alchemy-Token header works too', async () => {
    const res = await fetch(`${t.url}/api/keys`, { headers: { 'x-alchemy-token': t.authToken } });
    expect(res.status).toBe(200);
  });

  it('behavior: revoke takes effect at once for a cached key', async () => {
    const { data: created } = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'short-lived' }) })).json()) as { data: { id: string; tier: string; api_key: string } };
    expect(created.tier).toBe('free');
    const url = `${t.url}/v2/${created.api_key}`;
    expect((await post(url, rpcBody('eth_chainId'))).status).toBe(200);
    const revoked = await api(`/${created.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ data: { id: created.id, active: false } });
    expect((await post(url, rpcBody('eth_chainId'))).status).toBe(403);
  });

  it('behavior: usage per day and method, with last-used', async () => {
    const { data: created } = (await (await api('', { method: 'POST', body: JSON.stringify({ name: 'metered', tier: 'payg' }) })).json()) as { data: { id: string; api_key: string } };
    const url = `${t.url}/v2/${created.api_key}`;
    await post(url, rpcBody('eth_blockNumber'));
    await post(url, rpcBody('eth_blockNumber'));
    await post(url, rpcBody('trace_transaction', ['0x' + '11'.repeat(32)]));
    await post(url, rpcBody('no_such_method'));
    const res = await api(`/${created.id}/usage`);
    expect(res.status).toBe(200);
    const { data: usage } = (await res.json()) as { data: { key_id: string; totals: unknown; days: Array<{ methods: unknown; requests: number }>; from: string; to: string } };
    expect(usage.key_id).toBe(created.id);
    expect(usage.totals).toEqual({ requests: 3, compute_units: 60 });
    expect(usage.days).toHaveLength(1);
    expect(usage.days[0]!.methods).toEqual({ eth_blockNumber: { requests: 2, compute_units: 20 }, trace_transaction: { requests: 1, compute_units: 40 } });
    expect(usage.to > usage.from).toBe(true);
    const shown = (await (await api(`/${created.id}`)).json()) as { data: { last_used_at: string | null } };
    expect(shown.data.last_used_at).not.toBeNull();
  });

  it('error: bad bodies, unknown ids, bad queries and wrong methods', async () => {
    const answer = async (path: string, init: RequestInit = {}) => {
      const r = await api(path, init);
      return [r.status, await r.json()];
    };
    expect(await answer('', { method: 'POST', body: JSON.stringify({ name: '', tier: 'payg' }) })).toEqual([400, { message: 'name: must not be empty', field: 'name' }]);
    expect(await answer('', { method: 'POST', body: JSON.stringify({ name: 'x', tier: 'gold' }) })).toEqual([400, { message: 'tier: must be one of free, payg, enterprise', field: 'tier' }]);
    expect(await answer('', { method: 'POST', body: JSON.stringify({ name: 'x', allowed_origins: ['not an origin'] }) })).toEqual([
      400,
      { message: 'allowed_origins[0]: expected an origin such as https://app.example.com', field: 'allowed_origins[0]' },
    ]);
    expect(await answer('', { method: 'POST', body: '{' })).toEqual([400, { message: 'body: is not valid JSON', field: 'body' }]);
    expect(await answer('', { method: 'POST', body: JSON.stringify({ name: 'x'.repeat(70_000) }) })).toEqual([413, { message: 'body: larger than 65536 bytes' }]);
    expect(await answer('/key_nope')).toEqual([404, { message: 'id: no API key key_nope', field: 'id' }]);
    expect((await api('/key_nope/revoke', { method: 'POST' })).status).toBe(404);
    expect(await answer(`/${t.keyIds.free}/usage?from=yesterday`)).toEqual([400, { message: 'from: must be a UTC day as YYYY-MM-DD', field: 'from' }]);
    expect(await answer(`/${t.keyIds.free}/usage?from=2026-02-01&to=2026-01-01`)).toEqual([400, { message: 'from: must not be after to', field: 'from' }]);
    const wrongMethod = await api('', { method: 'DELETE' });
    expect([wrongMethod.status, wrongMethod.headers.get('allow')]).toEqual([405, 'GET, POST']);
    expect((await api(`/${t.keyIds.free}/revoke`)).status).toBe(405);
    expect(await answer('/%E0%A4%A')).toEqual([400, { message: 'id: malformed percent-encoding in the path', field: 'id' }]);
  });
});
