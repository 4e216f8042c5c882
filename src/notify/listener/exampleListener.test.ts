// Runs examples/listener/server.ts as its own process and delivers real notifications to it with
// the delivery worker: the example must verify, print each event once, and refuse bad signatures.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotifier, type Notifier } from '../createNotifier.js';
import { insertTestWebhook, notifyTestDatabases } from '../testing/notifyTestDatabases.js';
import { listEvents, replayEvent } from '../outbox/deliveryLog.js';
import type { SqlDatabase } from '../../store/sql.js';
import type { WebhookRecord } from '../webhooks/webhookTypes.js';

const script = fileURLToPath(new URL('../../../examples/listener/server.ts', import.meta.url));

describe('examples/listener', () => {
  let child: ChildProcess;
  let url: string;
  let stdout = '';
  let db: SqlDatabase;
  let cleanup: () => Promise<void>;
  let notifier: Notifier;
  let webhook: WebhookRecord;

  beforeAll(async () => {
    ({ db, cleanup } = await notifyTestDatabases.find((d) => d.name === 'sqlite')!.open());
    webhook = await insertTestWebhook(db, 'http://placeholder.invalid/');
    child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, SIGNING_KEY: webhook.signingKey, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`example did not start: ${stdout}`)), 20_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const m = /listening on (\S+)/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`example exited with ${code}`)));
    });
    await db.execute('UPDATE webhooks SET url = $1 WHERE id = $2', [url, webhook.id]);
    notifier = createNotifier({ db, pollIntervalMs: 20 });
  });
  afterAll(async () => {
    await notifier.stop();
    child.kill('SIGTERM');
    await cleanup();
  });

  it('default: verifies delivered notifications and prints each event once, even when replayed', async () => {
    const events = await db.transaction((tx) =>
      notifier.appendEvents(tx, [1, 2].map((n) => ({ webhookId: webhook.id, type: 'ADDRESS_ACTIVITY' as const, event: { network: 'ETH_MAINNET', activity: [{ n }] } }))),
    );
    while ((await notifier.runOnce()) > 0);
    // Due by the notifier's own clock (a steady clock, which may run a few ms behind Date.now()).
    await replayEvent(db, webhook.id, events[0]!.id, notifier.clock.now(), 60_000);
    while ((await notifier.runOnce()) > 0);
    expect((await listEvents(db, webhook.id, { limit: 10 })).items.map((e) => [e.status, e.lastStatusCode])).toEqual([
      ['succeeded', 200],
      ['succeeded', 200],
    ]);
    const printed = stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { id: string }).id);
    expect(printed).toEqual(events.map((e) => e.id));
  });

  it('error: a body signed with another key is refused with 401', async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-service-signature': 'ab'.repeat(32) }, body: '{}' });
    expect(res.status).toBe(401);
  });
});
