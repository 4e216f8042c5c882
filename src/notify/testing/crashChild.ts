// Child process of the crash-recovery test: plays a chain follower that appends a burst of events
// (each transaction also advances a cursor row, as the real follower does) while a notifier
// delivers them. The test kills it with SIGKILL mid-burst and starts it again on the same file.
//   node --import tsx crashChild.ts <sqliteFile> <webhookId> <totalEvents>
import { createSqliteDatabase } from '../../store/sqlite/sqliteDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { migrations } from '../../store/migrations/index.js';
import { toNumber } from '../../store/sql.js';
import { createNotifier } from '../createNotifier.js';

const [file, webhookId, totalText] = process.argv.slice(2) as [string, string, string];
const total = Number(totalText);
const BATCH = 5;

const db = createSqliteDatabase({ filename: file });
await migrate(db, migrations);
await db.execute('CREATE TABLE IF NOT EXISTS crash_cursor (id TEXT PRIMARY KEY, next_n BIGINT NOT NULL)');
await db.execute("INSERT INTO crash_cursor (id, next_n) VALUES ('c', 0) ON CONFLICT DO NOTHING");

const notifier = createNotifier({ db, fetchTimeoutMs: 1_000, leaseMs: 1_500, pollIntervalMs: 20, retryBaseDelayMs: 20, retryMaxDelayMs: 100, concurrency: 8 });
notifier.start();
process.stdout.write('started\n');

for (;;) {
  const next = toNumber((await db.query<{ n: unknown }>("SELECT next_n AS n FROM crash_cursor WHERE id = 'c'"))[0]!.n);
  if (next >= total) break;
  const count = Math.min(BATCH, total - next);
  await db.transaction(async (tx) => {
    await notifier.appendEvents(tx, Array.from({ length: count }, (_, i) => ({ webhookId, type: 'ADDRESS_ACTIVITY' as const, event: { n: next + i } })));
    await tx.execute("UPDATE crash_cursor SET next_n = $1 WHERE id = 'c'", [next + count]);
  });
  notifier.wake();
  await new Promise((r) => setTimeout(r, 10));
}
process.stdout.write('appended\n');
