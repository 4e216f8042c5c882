// Test databases (SQLite file and a fresh PostgreSQL schema) with every migration applied, as the
// service applies them, plus a helper that stores a webhook directly through the repository.
import { testDatabases } from '../../store/testing/openTestDatabases.js';
import { migrate } from '../../store/migrations/migrate.js';
import type { SqlDatabase } from '../../store/sql.js';
import { createWebhookRepository } from '../webhooks/webhookRepository.js';
import { createWebhookIds } from '../webhooks/webhookIds.js';
import type { WebhookRecord, WebhookType } from '../webhooks/webhookTypes.js';

export interface NotifyTestDatabase {
  name: 'sqlite' | 'postgres';
  open(): Promise<{ db: SqlDatabase; cleanup(): Promise<void> }>;
}

export const notifyTestDatabases: NotifyTestDatabase[] = testDatabases.map((t) => ({
  name: t.name,
  async open() {
    const opened = await t.open();
    await migrate(opened.db);
    return opened;
  },
}));

const ids = createWebhookIds();

/** Stores an ADDRESS_ACTIVITY (default) webhook pointing at `url`. */
export async function insertTestWebhook(db: SqlDatabase, url: string, overrides: { type?: WebhookType; createdAt?: number; network?: string } = {}): Promise<WebhookRecord> {
  const repo = createWebhookRepository(db);
  const created = await repo.create(
    {
      id: ids.webhookId(),
      network: overrides.network ?? 'ETH_MAINNET',
      type: overrides.type ?? 'ADDRESS_ACTIVITY',
      url,
      name: null,
      appId: null,
      signingKey: ids.signingKey(),
      graphqlQuery: null,
      skipEmptyMessages: false,
      addresses: ['0x00000000000000000000000000000000000000aa'],
      nftFilters: [],
      createdAt: overrides.createdAt ?? 1_700_000_000_000,
    },
    Number.POSITIVE_INFINITY,
  );
  return created!;
}
