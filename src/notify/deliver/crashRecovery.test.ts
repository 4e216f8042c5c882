// kill -9 in the middle of a burst: after a restart on the same SQLite file, every committed event
// arrives at least once, first arrivals stay in event order, and events equal the follower cursor.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteDatabase } from '../../store/sqlite/sqliteDatabase.js';
import { migrate } from '../../store/migrations/migrate.js';
import { migrations } from '../../store/migrations/index.js';
import { toNumber } from '../../store/sql.js';
import { insertTestWebhook } from '../testing/notifyTestDatabases.js';
import { startTestListener } from '../testing/testListener.js';

const child = fileURLToPath(new URL('../testing/crashChild.ts', import.meta.url));
const TOTAL = 200;

function startChild(file: string, webhookId: string): { proc: ChildProcess; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, file, webhookId, String(TOTAL)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return { proc, exited };
}

describe('crash recovery (SIGKILL mid-burst, SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-crash-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('behavior: nothing committed is lost, first arrivals stay in order, and pending work resumes after restart', async () => {
    const file = join(dir, 'service.sqlite');
    const setup = createSqliteDatabase({ filename: file });
    await migrate(setup, migrations);
    // Every 7th answer is a 500, so retries are in flight too when the process dies.
    const listener = await startTestListener((r) => (r.index % 7 === 3 ? 500 : { status: 200, delayMs: 2 }));
    const webhook = await insertTestWebhook(setup, listener.url);
    await setup.close();
    try {
      const first = startChild(file, webhook.id);
      await listener.waitFor((rs) => rs.length >= 40, 30_000);
      first.proc.kill('SIGKILL');
      await first.exited;
      const receivedBeforeCrash = listener.requests.length;

      const check = createSqliteDatabase({ filename: file });
      const cursor = toNumber((await check.query<{ n: unknown }>("SELECT next_n AS n FROM crash_cursor WHERE id = 'c'"))[0]!.n);
      const stored = toNumber((await check.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM webhook_events'))[0]!.n);
      await check.close();
      expect(stored).toBe(cursor);
      expect(cursor).toBeLessThan(TOTAL);

      const second = startChild(file, webhook.id);
      const ids = (rs: typeof listener.requests) => new Set(rs.filter((r) => r.status === 200).map((r) => (JSON.parse(r.body) as { event: { n: number } }).event.n));
      await listener.waitFor((rs) => ids(rs).size === TOTAL, 60_000);
      second.proc.kill('SIGTERM');
      await second.exited;

      expect(receivedBeforeCrash).toBeGreaterThanOrEqual(40);
      expect(cursor).toBeGreaterThan(0);
      const firstArrival: number[] = [];
      const seen = new Set<string>();
      const byId = new Map<string, number>();
      for (const r of listener.requests) {
        const body = JSON.parse(r.body) as { id: string; event: { n: number } };
        // The same id always carries the same event.
        if (byId.has(body.id)) expect(byId.get(body.id)).toBe(body.event.n);
        byId.set(body.id, body.event.n);
        if (!seen.has(body.id)) {
          seen.add(body.id);
          firstArrival.push(body.event.n);
        }
      }
      expect(firstArrival).toEqual(Array.from({ length: TOTAL }, (_, i) => i));
      expect(byId.size).toBe(TOTAL);
    } finally {
      await listener.close();
    }
  }, 120_000);
});
