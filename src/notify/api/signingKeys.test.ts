// Signing keys are secrets: shown in the answers of creation and rotation, and otherwise only by
// the explicit reveal route; no listing or update answer carries them (real HTTP, real SQLite).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { startRouteServer, type RouteServer } from '../testing/startRouteServer.js';
import { createWebhooksApi } from './webhooksApi.js';

const TOKEN = 'test-auth-token-0123456789';

describe('signing keys in answers', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier;
  let server: RouteServer;
  beforeAll(async () => {
    ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
    notifier = createNotifier({ db });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN }));
  });
  afterAll(async () => {
    await server.close();
    await notifier.stop();
    await cleanup();
  });

  async function call(method: string, path: string, body?: unknown, token = TOKEN): Promise<{ status: number; text: string; data: Record<string, unknown> }> {
    const res = await fetch(`${server.url}${path}`, { method, headers: { 'Content-Type': 'application/json', 'X-Service-Token': token }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, data: (JSON.parse(text) as { data: Record<string, unknown> }).data };
  }

  it('behavior: listings and updates never carry a signing key; creation, rotation and the reveal route do', async () => {
    const created = await call('POST', '/create-webhook', { network: 'ETH_MAINNET', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: 'https://93.184.216.34/h', addresses: ['0x00000000000000000000000000000000000000a1'] });
    const id = created.data.id as string;
    const key = created.data.signing_key as string;
    expect(key).toMatch(/^whsec_/);
    const secretFree = [
      await call('GET', '/team-webhooks'),
      await call('PUT', '/update-webhook', { webhook_id: id, name: 'renamed' }),
      await call('POST', '/pause-webhook', { webhook_id: id }),
      await call('POST', '/resume-webhook', { webhook_id: id }),
    ];
    for (const answer of secretFree) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(key);
      expect(answer.text).not.toContain('whsec_');
    }
    expect((secretFree[0]!.data as unknown as Array<{ signing_key: string }>)[0]!.signing_key).toBe('');
    expect(await call('GET', `/webhook-signing-key?webhook_id=${id}`)).toMatchObject({ status: 200, data: { webhook_id: id, signing_key: key, previous_signing_key_expires_at: null } });
    expect((await call('GET', `/webhook-signing-key?webhook_id=${id}`, undefined, 'wrong-token-0123456789')).status).toBe(401);
    expect((await call('GET', '/webhook-signing-key?webhook_id=wh_nope')).status).toBe(404);
    const rotated = await call('POST', '/rotate-webhook-signing-key', { webhook_id: id, grace_period_sec: 60 });
    const newKey = rotated.data.signing_key as string;
    expect(newKey).toMatch(/^whsec_/);
    expect(newKey).not.toBe(key);
    expect((await call('GET', `/webhook-signing-key?webhook_id=${id}`)).data).toMatchObject({ signing_key: newKey, previous_signing_key_expires_at: expect.any(Number) });
    expect((await call('GET', '/team-webhooks')).text).not.toContain('whsec_');
  });

  it('default: the OpenAPI document describes the reveal route', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>> };
    expect(doc.paths['/webhook-signing-key']!.get!.parameters!.map((p) => p.name)).toEqual(['webhook_id']);
  });
});
