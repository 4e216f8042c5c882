// A listener down for most of an hour (issue 18), with the hour passed by libfaketime in seconds:
// two real services (bin/tracehook.js over dist/: `npm run build` first), one on the free tier
// (10-minute retry window) and one on enterprise (1 hour), each watching its own failing listener.
// Both clocks, wall and monotonic, move forward a minute at a time (time passing, not a step), so
// timers fire and back-offs elapse. Past 10 minutes the free webhook's events are dead-lettered
// (the API's failed events and /metrics' dead letters say so); the enterprise webhook keeps
// retrying and delivers everything when its listener returns at 55 minutes. Replaying the free
// webhook's dead letters delivers them too: nothing lost, nothing delivered twice.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';
import { createFaketimeControl, faketimeMissing, type FaketimeControl } from '../../testing/faketime.js';
import { startTestListener, type TestListener } from '../testing/testListener.js';
import { apiGet, apiPost, createAddressWebhook, metricValue, rpc } from '../testing/serviceCalls.js';

const SENDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const EVENTS = 3;
const DOWN_MINUTES = 55;
const built = existsSync(fileURLToPath(new URL('../../../dist/main.js', import.meta.url)));
const missing = faketimeMissing();
if (missing) console.warn(`\n!!! SKIPPED: the listener-down-an-hour fault needs libfaketime: ${missing}\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Side {
  tier: 'free' | 'enterprise';
  faketime: FaketimeControl;
  listener: TestListener;
  service: TracehookProcess;
  webhookId: string;
  sent: string[];
  up: boolean;
}

describe.skipIf(missing !== null)('a listener down for an hour, the hour passed by libfaketime (free and enterprise tiers, bin/tracehook.js)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-downhour-'));
  const sides: Side[] = [];
  afterAll(async () => {
    // A service that died mid-run: its last words, for the failure report.
    for (const { tier, service } of sides) {
      const { exitCode, signalCode } = service.child;
      if (exitCode !== null || signalCode !== null) console.error(`${tier} service exited (code ${exitCode}, signal ${signalCode}):\n${service.logs().slice(-4000)}`);
    }
    for (const s of sides) {
      await s.service.kill('SIGKILL');
      await s.listener.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const hashesOf = (body: string) => (JSON.parse(body) as { event: { activity: { hash: string }[] } }).event.activity.map((a) => a.hash);
  const idOf = (body: string) => (JSON.parse(body) as { id: string }).id;
  const deliveredHashes = (s: Side) => s.listener.requests.filter((r) => r.status === 200).flatMap((r) => hashesOf(r.body));

  async function start(tier: Side['tier']): Promise<Side> {
    const sideDir = join(dir, tier);
    const faketime = createFaketimeControl(dir, { monotonic: 'faked', name: tier });
    const side = { tier, faketime, up: false, sent: [] as string[] } as Side;
    side.listener = await startTestListener(() => (side.up ? 200 : 500));
    side.service = await spawnTracehook({ dataDir: join(sideDir, 'data'), from: 'build', env: faketime.env, args: ['--webhook-tier', tier] });
    side.webhookId = await createAddressWebhook(side.service, side.listener.url, [RECIPIENT]);
    for (let i = 0; i < EVENTS; i++) side.sent.push((await rpc(side.service, 'eth_sendTransaction', [{ from: SENDER, to: RECIPIENT, value: `0x${(1000 + i).toString(16)}` }])) as string);
    sides.push(side);
    return side;
  }

  it('behavior: free-tier events dead-lettered past 10 minutes (API, /metrics); enterprise events retried and delivered after 55 minutes; none lost or duplicated', { timeout: 150_000 }, async () => {
    if (!built) throw new Error('dist/ is missing: run `npm run build` before this suite');
    const [free, enterprise] = [await start('free'), await start('enterprise')];
    await Promise.all([free, enterprise].map((s) => s.listener.waitFor((r) => new Set(r.map((x) => idOf(x.body))).size === EVENTS, 30_000)));

    // The hour passes a minute at a time; each service gets real time to run what fell due.
    for (let minute = 1; minute <= DOWN_MINUTES; minute++) {
      for (const s of [free, enterprise]) s.faketime.setOffsetSec(minute * 60);
      await sleep(400);
    }
    // Free: every event failed for good, in the API and in /metrics (sampled every few seconds).
    const freeFailed = await apiGet<{ data: { event_id: string; attempts: number }[] }>(free.service, `/api/webhook-events?webhook_id=${free.webhookId}&status=failed`);
    expect(freeFailed.data).toHaveLength(EVENTS);
    await sleep(1_000);
    free.faketime.setOffsetSec(DOWN_MINUTES * 60 + 10);
    await sleep(1_000);
    expect(await metricValue(free.service, 'tracehook_webhook_dead_letters{type="ADDRESS_ACTIVITY"}')).toBe(EVENTS);
    const freeRequestsWhenDead = free.listener.requests.length;
    // Enterprise: still retrying, none failed.
    const entPending = await apiGet<{ data: { attempts: number }[] }>(enterprise.service, `/api/webhook-events?webhook_id=${enterprise.webhookId}&status=pending`);
    expect(entPending.data).toHaveLength(EVENTS);
    expect(await metricValue(enterprise.service, 'tracehook_webhook_dead_letters{type="ADDRESS_ACTIVITY"}')).toBe(0);
    const lateRetries = enterprise.listener.requests.length - EVENTS;

    // The listeners return; the enterprise events arrive by themselves within a back-off or two.
    free.up = enterprise.up = true;
    for (let minute = DOWN_MINUTES + 1; minute <= DOWN_MINUTES + 5 && !enterprise.sent.every((h) => deliveredHashes(enterprise).includes(h)); minute++) {
      enterprise.faketime.setOffsetSec(minute * 60);
      await sleep(500);
    }
    expect(enterprise.sent.filter((h) => !deliveredHashes(enterprise).includes(h))).toEqual([]);
    // The free events stay dead-lettered (no request since) until replayed; then they arrive.
    await sleep(500);
    expect(free.listener.requests.length).toBe(freeRequestsWhenDead);
    const replayed = await apiPost<{ data: { replayed: number } }>(free.service, '/api/replay-failed-webhook-events', { webhook_id: free.webhookId, since: 0 });
    expect(replayed.data.replayed).toBe(EVENTS);
    await free.listener.waitFor(() => free.sent.every((h) => deliveredHashes(free).includes(h)), 20_000);

    for (const s of [free, enterprise]) {
      // One 200 per transaction, under one event id throughout.
      const delivered = deliveredHashes(s);
      expect(delivered.sort()).toEqual([...s.sent].sort());
      const idsByHash = new Map<string, Set<string>>();
      for (const r of s.listener.requests) for (const h of hashesOf(r.body)) idsByHash.set(h, (idsByHash.get(h) ?? new Set()).add(idOf(r.body)));
      expect([...idsByHash.values()].every((ids) => ids.size === 1)).toBe(true);
    }
    const freeAttempts = freeFailed.data.reduce((n, e) => n + e.attempts, 0);
    console.log(
      `listener down ${DOWN_MINUTES} min (faketime): free ${EVENTS} events dead-lettered after ${freeAttempts} attempts, replayed and delivered; ` +
        `enterprise ${EVENTS} events delivered after ${enterprise.listener.requests.length} requests (${lateRetries} retries while down); lost=0 duplicates=0`,
    );
  });
});
