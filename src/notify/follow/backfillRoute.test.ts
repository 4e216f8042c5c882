import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../store/sql.js';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { createWebhooksApi } from '../api/webhooksApi.js';
import { startRouteServer, type RouteServer } from '../testing/startRouteServer.js';
import { loadActivityFixture } from '../extract/testing/activityFixture.js';
import { createChainFollower } from './chainFollower.js';
import { createMemoryBlockSource } from './memoryBlockSource.js';
import { createFollowerRoutes } from './backfillRoute.js';
import { createTestWebhook, followerTestDatabases, notificationsOf } from './testing/followerHarness.js';

const TOKEN = 'test-auth-token-0123456789';
const NETWORK = 'TRACEHOOK_DEV';
const fixture = loadActivityFixture();

describe('POST /api/backfill-webhook', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier;
  let server: RouteServer;
  beforeEach(async () => {
    ({ db, cleanup } = await followerTestDatabases[0]!.open());
    notifier = createNotifier({ db });
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN, networks: [NETWORK], extraRoutes: createFollowerRoutes }));
  });
  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  const call = async (body: unknown, token = TOKEN) => {
    const res = await fetch(`${server.url}/backfill-webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Service-Token': token }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>; message?: string } };
  };

  it('behavior: replays history from from_block through the follower, then live blocks', async () => {
    const source = createMemoryBlockSource({ blocks: fixture.canonical.slice(0, 9) });
    const follower = createChainFollower({ network: NETWORK, db, source, outbox: notifier });
    await follower.syncOnce();
    const hook = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: '{ block { number } }' });
    expect(await call({ webhook_id: hook.id, from_block: '0x5' })).toEqual({ status: 200, body: { data: { webhook_id: hook.id, network: NETWORK, from_block: '0x5', current_block: '0x8' } } });
    source.append(fixture.canonical[9]!);
    await follower.syncOnce();
    source.append(fixture.canonical[10]!);
    await follower.syncOnce();
    const numbers = (await notificationsOf(db, hook.id)).map((n) => (n.body.event.data as { block: { number: number } }).block.number);
    expect(numbers).toEqual([5, 6, 7, 8, 9, 10]);
  });

  it('error: unknown webhooks, bad block numbers and a missing token are refused', async () => {
    const hook = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: '{ block { number } }' });
    expect((await call({ webhook_id: 'wh_nope', from_block: 1 })).status).toBe(404);
    const bad = await call({ webhook_id: hook.id, from_block: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/from_block: must be a block number/);
    expect((await call({ webhook_id: hook.id, from_block: 1 }, 'wrong')).status).toBe(401);
  });
});
