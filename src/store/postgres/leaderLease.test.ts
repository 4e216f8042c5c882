import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { SqlDatabase } from '../sql.js';
import { migrate } from '../migrations/migrate.js';
import { TEST_POSTGRES_URL, testDatabases } from '../testing/openTestDatabases.js';
import { createLeaderLease, fencedDatabase, LeaseLostError, type LeaderLease } from './leaderLease.js';

const quiet = { info: () => undefined, warn: () => undefined };
const until = async (check: () => boolean, timeoutMs = 8000) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('leaderLease (postgres)', () => {
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let schema: string;
  const leases: LeaderLease[] = [];
  beforeEach(async () => {
    ({ db, cleanup } = await testDatabases.find((t) => t.name === 'postgres')!.open());
    await migrate(db);
    schema = (await db.query<{ s: string }>('SELECT current_schema() AS s'))[0]!.s;
  });
  afterEach(async () => {
    await Promise.all(leases.splice(0).map((l) => l.stop()));
    await cleanup();
  });

  function lease(holder: string, events: string[]) {
    const l = createLeaderLease({
      connectionString: TEST_POSTGRES_URL,
      schema,
      name: 'follower:TEST',
      holder,
      intervalMs: 100,
      logger: quiet,
      onAcquired: (g) => void events.push(`${holder} acquired ${g}`),
      onLost: () => void events.push(`${holder} lost`),
    });
    leases.push(l);
    l.start();
    return l;
  }

  it('behavior: one holder; the standby takes over with the next generation when the holder\'s session dies, and the old holder\'s writes are fenced', async () => {
    const events: string[] = [];
    const a = lease('a', events);
    await until(() => a.generation() !== null);
    const b = lease('b', events);
    await new Promise((r) => setTimeout(r, 400));
    expect(b.generation()).toBeNull();
    const fencedA = fencedDatabase(db, 'follower:TEST', a.generation()!, () => undefined);
    await fencedA.transaction(async (tx) => tx.execute('SELECT 1'));

    // The holder's session ends (as when its process is killed or its connection drops).
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    const killed = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid::bigint = (hashtext($1)::bigint & 4294967295)",
      [`tracehook:${schema}:follower:TEST`],
    );
    expect(killed.rowCount).toBe(1);
    await admin.end();
    const started = Date.now();
    await until(() => b.generation() !== null);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(b.generation()).toBe(2n);
    await until(() => events.includes('a lost'));
    await expect(fencedA.transaction(async (tx) => tx.execute('SELECT 1'))).rejects.toBeInstanceOf(LeaseLostError);
    const fencedB = fencedDatabase(db, 'follower:TEST', 2n, () => undefined);
    await expect(fencedB.transaction(async () => 'written')).resolves.toBe('written');
    // The old holder may notice after the takeover (its next check): its writes were fenced meanwhile.
    expect([...events].sort()).toEqual(['a acquired 1', 'a lost', 'b acquired 2']);
  });

  it('behavior: stop gives the role up and the standby takes it', async () => {
    const events: string[] = [];
    const a = lease('a', events);
    await until(() => a.generation() !== null);
    const b = lease('b', events);
    await a.stop();
    await until(() => b.generation() !== null);
    expect(events).toEqual(['a acquired 1', 'a lost', 'b acquired 2']);
  });
});
