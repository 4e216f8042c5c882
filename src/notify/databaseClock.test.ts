import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../store/sql.js';
import { notifyTestDatabases } from './testing/notifyTestDatabases.js';
import { createDatabaseClock } from './databaseClock.js';

const postgres = notifyTestDatabases.find((d) => d.name === 'postgres')!;
describe('database clock (postgres)', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ db, cleanup } = await postgres.open()));
  afterEach(async () => cleanup());

  it("default: reads the server's clock and advances by the monotonic clock between reads", async () => {
    let mono = 5_000;
    const clock = await createDatabaseClock(db, { monotonicNow: () => mono, syncIntervalMs: 60_000 });
    const [row] = await db.query<{ t: string }>('SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint AS t');
    const server = Number(row!.t);
    expect(Math.abs(clock.now() - server)).toBeLessThan(500);
    mono += 3_600_000;
    expect(Math.abs(clock.now() - server - 3_600_000)).toBeLessThan(500);
    clock.close();
  });

  it("behavior: a periodic read corrects this process's drift from the server's clock", async () => {
    const clock = await createDatabaseClock(db, { monotonicNow: () => 0, syncIntervalMs: 50 });
    const start = clock.now();
    // This process's monotonic clock stands still (a drift of the whole interval): the next read catches up.
    await new Promise((r) => setTimeout(r, 400));
    expect(clock.now() - start).toBeGreaterThanOrEqual(300);
    clock.close();
  });
});
