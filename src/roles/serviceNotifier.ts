// The notifier every role builds the same way from the config: on PostgreSQL with a LISTEN/NOTIFY
// wake channel, so a follower's commit or an API change in one process wakes the delivery
// workers of all of them.
import type { ServiceConfig } from '../config/options.js';
import type { Logger } from '../log/createLogger.js';
import type { SqlDatabase } from '../store/sql.js';
import { createNotifyChannel } from '../store/postgres/notifyChannel.js';
import { createNotifier, type Notifier, type NotifierOptions } from '../notify/index.js';
import { openServiceStore } from '../store/openServiceStore.js';
import { createDatabaseClock } from '../notify/databaseClock.js';

export interface ServiceNotifier {
  notifier: Notifier;
  /** Ends the wake channel's connections (after the notifier stopped). */
  close(): Promise<void>;
}

/** What the process adds to the notifier beside the config (e.g. its /metrics hook). */
export type ServiceNotifierExtras = Pick<NotifierOptions, 'onAttempt'>;

export async function createServiceNotifier(config: ServiceConfig, db: SqlDatabase, logger: Logger, extras: ServiceNotifierExtras = {}): Promise<ServiceNotifier> {
  const wakeChannel = config.databaseUrl
    ? await createNotifyChannel({ connectionString: config.databaseUrl, channel: 'tracehook_deliveries', logger: logger.child({ part: 'notify' }) })
    : undefined;
  // Times other processes compare (leases, retries) come from the database server's clock there;
  // alone on SQLite, from the process's steady clock whose wall-clock steps the worker follows.
  const clock = config.databaseUrl ? await createDatabaseClock(db, { logger: logger.child({ part: 'notify' }) }) : undefined;
  const notifier = createNotifier({
    db,
    clock,
    logger: logger.child({ part: 'notify' }),
    tier: config.webhookTier,
    retryWindowMs: config.webhookRetryWindowSec === undefined ? undefined : config.webhookRetryWindowSec * 1000,
    concurrency: config.webhookConcurrency,
    fetchTimeoutMs: config.webhookTimeoutMs,
    retention: {
      deliveredMs: config.webhookRetentionSec === 0 ? null : config.webhookRetentionSec * 1000,
      deadLetterMs: config.webhookDeadLetterRetentionSec === 0 ? null : config.webhookDeadLetterRetentionSec * 1000,
    },
    allowLoopbackUrls: !config.production,
    allowList: config.webhookAllowList,
    wakeChannel,
    ...extras,
  });
  return {
    notifier,
    close: async () => {
      clock?.close();
      await wakeChannel?.close();
    },
  };
}

/**
 * The shared store and its notifier, for the background roles (worker, follower): both closed by
 * `cleanups`, the notifier's channel before the store.
 */
export async function openRoleStore(config: ServiceConfig, logger: Logger, cleanups: { push(fn: () => Promise<void> | void): void }): Promise<{ db: SqlDatabase; notifier: Notifier }> {
  const db = await openServiceStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  cleanups.push(() => db.close());
  const { notifier, close } = await createServiceNotifier(config, db, logger);
  cleanups.push(close);
  return { db, notifier };
}
