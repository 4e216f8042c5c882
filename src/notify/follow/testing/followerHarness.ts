// Test and benchmark rig for the chain follower: a store with the webhook and follower migrations,
// webhooks created through the real repository, the real outbox, and readers for what was appended.
import { testDatabases } from '../../../store/testing/openTestDatabases.js';
import { migrate } from '../../../store/migrations/migrate.js';
import { migrations } from '../../../store/migrations/index.js';
import type { SqlDatabase } from '../../../store/sql.js';
import { createWebhookRepository } from '../../webhooks/webhookRepository.js';
import { createWebhookIds } from '../../webhooks/webhookIds.js';
import type { NftFilter, WebhookRecord, WebhookType } from '../../webhooks/webhookTypes.js';
import { appendEvents } from '../../outbox/appendEvents.js';
import type { Clock } from '../../clock.js';
import type { FollowerOutbox } from '../chainFollower.js';

export interface FollowerTestDatabase {
  name: 'sqlite' | 'postgres';
  open(): Promise<{ db: SqlDatabase; cleanup(): Promise<void> }>;
}

/** SQLite and PostgreSQL, each with the webhook and follower schemas. */
export const followerTestDatabases: FollowerTestDatabase[] = testDatabases.map((t) => ({
  name: t.name,
  async open() {
    const opened = await t.open();
    // Every migration, as the service runs them: a partial list misses the columns later ones add.
    await migrate(opened.db, migrations);
    return opened;
  },
}));

const ids = createWebhookIds();

export interface TestWebhookSpec {
  type: WebhookType;
  network?: string;
  addresses?: string[];
  nftFilters?: NftFilter[];
  graphqlQuery?: string;
  skipEmptyMessages?: boolean;
  /** Default http://127.0.0.1:9/hook (nothing listens: for tests that only read the outbox). */
  url?: string;
}

export async function createTestWebhook(db: SqlDatabase, spec: TestWebhookSpec): Promise<WebhookRecord> {
  const created = await createWebhookRepository(db).create(
    {
      id: ids.webhookId(),
      network: spec.network ?? 'TRACEHOOK_DEV',
      type: spec.type,
      url: spec.url ?? 'http://127.0.0.1:9/hook',
      name: null,
      appId: null,
      signingKey: ids.signingKey(),
      graphqlQuery: spec.graphqlQuery ?? null,
      skipEmptyMessages: spec.skipEmptyMessages ?? false,
      addresses: spec.addresses ?? [],
      nftFilters: spec.nftFilters ?? [],
      createdAt: Date.now(),
    },
    Number.POSITIVE_INFINITY,
  );
  return created!;
}

/** The real outbox append, with the event time from `clock`; counts wake-ups. */
export function createTestOutbox(clock: Clock): FollowerOutbox & { wakes: number } {
  const outbox = {
    wakes: 0,
    appendEvents: (tx: Parameters<FollowerOutbox['appendEvents']>[0], events: Parameters<FollowerOutbox['appendEvents']>[1]) => appendEvents(tx, events, { nowMs: clock.now() }),
    wake() {
      outbox.wakes++;
    },
  };
  return outbox;
}

export interface StoredNotification {
  seq: number;
  type: WebhookType;
  /** The parsed notification body (webhookId, id, createdAt, type, event). */
  body: { webhookId: string; id: string; createdAt: string; type: WebhookType; event: Record<string, unknown> };
}

/** Every notification appended for `webhookId`, in seq order. */
export async function notificationsOf(db: SqlDatabase, webhookId: string): Promise<StoredNotification[]> {
  const rows = await db.query<{ seq: unknown; type: string; body: string }>('SELECT seq, type, body FROM webhook_events WHERE webhook_id = $1 ORDER BY seq', [webhookId]);
  return rows.map((r) => ({ seq: Number(r.seq), type: r.type as WebhookType, body: JSON.parse(r.body) as StoredNotification['body'] }));
}
