import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { TEST_POSTGRES_URL } from '../testing/openTestDatabases.js';
import { createNotifyChannel, type NotifyChannel } from './notifyChannel.js';

const quiet = { warn: () => undefined };
const until = async (check: () => boolean, timeoutMs = 5000) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('notifyChannel (postgres)', () => {
  const channels: NotifyChannel[] = [];
  afterEach(async () => Promise.all(channels.splice(0).map((c) => c.close())));

  it('behavior: a wake-up reaches another process\'s listener, also after its connection was dropped', async () => {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const open = async () => {
      const c = await createNotifyChannel({ connectionString: TEST_POSTGRES_URL, channel: 'tracehook_test', schema, logger: quiet, reconnectMs: 50 });
      channels.push(c);
      return c;
    };
    const [sender, receiver] = [await open(), await open()];
    let heard = 0;
    receiver.subscribe(() => heard++);
    sender.send();
    await until(() => heard >= 1);

    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1', [`LISTEN tracehook_test_${schema}`]);
    await admin.end();
    expect(killed.rowCount).toBe(2);
    // Reconnected listeners look at the store once (what was sent meanwhile is unknown), then hear sends again.
    const before = heard;
    await until(() => heard > before);
    const reconnected = heard;
    sender.send();
    await until(() => heard > reconnected);
  });
});
