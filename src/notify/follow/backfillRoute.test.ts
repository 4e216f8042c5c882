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

  const status = async (webhookId: string) => {
    const res = await fetch(`${server.url}/backfill-status?webhook_id=${webhookId}`, { headers: { 'X-Service-Token': TOKEN } });
    return ((await res.json()) as { data: Record<string, unknown> }).data;
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

  it('behavior: a backfill starts at once, with no new block, and reports its progress in the API and the log', async () => {
    const source = createMemoryBlockSource({ blocks: fixture.canonical.slice(0, 9) });
    const lines: Array<{ message: string; fields: Record<string, unknown> }> = [];
    const record = (fields: object, message: string) => void lines.push({ message, fields: fields as Record<string, unknown> });
    const logger = { debug: () => undefined, info: record, warn: record, error: record };
    // The poll is an hour away: only the wake-up of the request can start the backfill.
    const follower = createChainFollower({ network: NETWORK, db, source, outbox: notifier, pollIntervalMs: 3_600_000, logger });
    await server.close();
    server = await startRouteServer(createWebhooksApi({ db, notifier, authToken: TOKEN, networks: [NETWORK], extraRoutes: createFollowerRoutes, onBackfillRequested: () => follower.wake() }));
    follower.start();
    try {
      while (follower.cursor()?.number !== 8n) await new Promise((r) => setTimeout(r, 10));
      const hook = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: '{ block { number } }' });
      expect(await status(hook.id)).toMatchObject({ state: 'done', done: true, next_block: null, current_block: '0x8' });
      expect((await call({ webhook_id: hook.id, from_block: 2 })).status).toBe(200);
      let last: Record<string, unknown> = {};
      for (let i = 0; i < 500 && !last.done; i++) {
        last = await status(hook.id);
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(last).toEqual({ webhook_id: hook.id, state: 'done', done: true, requested_from: null, next_block: null, end_block: null, remaining_blocks: null, current_block: '0x8' });
      const numbers = (await notificationsOf(db, hook.id)).map((n) => (n.body.event.data as { block: { number: number } }).block.number);
      expect(numbers).toEqual([2, 3, 4, 5, 6, 7, 8]);
      expect(lines.filter((l) => l.fields.webhookId === hook.id).map((l) => [l.message, l.fields.block])).toEqual([
        ['backfill running', '2'],
        ['backfill done; live notifications resume', '8'],
      ]);
      expect(lines.find((l) => l.message === 'backfill running')!.fields).toMatchObject({ end: '8', remaining: '6' });

      // from_block on create-webhook starts the same way.
      const res = await fetch(`${server.url}/create-webhook`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Service-Token': TOKEN },
        body: JSON.stringify({ network: NETWORK, webhook_type: 'GRAPHQL', webhook_url: 'http://127.0.0.1:9/hook', graphql_query: '{ block { number } }', from_block: 6 }),
      });
      const created = ((await res.json()) as { data: { id: string } }).data;
      for (let i = 0; i < 500 && !(await status(created.id)).done; i++) await new Promise((r) => setTimeout(r, 5));
      expect((await notificationsOf(db, created.id)).map((n) => (n.body.event.data as { block: { number: number } }).block.number)).toEqual([6, 7, 8]);
    } finally {
      await follower.stop();
    }
  });

  it('behavior: the status shows a request not yet taken up and a running range', async () => {
    const source = createMemoryBlockSource({ blocks: fixture.canonical.slice(0, 9) });
    const follower = createChainFollower({ network: NETWORK, db, source, outbox: notifier });
    await follower.syncOnce();
    const hook = await createTestWebhook(db, { type: 'GRAPHQL', graphqlQuery: '{ block { number } }' });
    await call({ webhook_id: hook.id, from_block: '0x3' });
    expect(await status(hook.id)).toMatchObject({ state: 'pending', done: false, requested_from: '0x3', next_block: null });
    await db.execute("UPDATE follower_webhooks SET replay_from = NULL, backfill_next = 5, backfill_end = 8 WHERE webhook_id = $1", [hook.id]);
    expect(await status(hook.id)).toMatchObject({ state: 'running', done: false, next_block: '0x5', end_block: '0x8', remaining_blocks: 4, current_block: '0x8' });
    expect((await fetch(`${server.url}/backfill-status?webhook_id=wh_nope`, { headers: { 'X-Service-Token': TOKEN } })).status).toBe(404);
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
