// Steps of the system clock during retries and leases (issue 18): the real service (bin/tracehook.js
// over dist/: `npm run build` first) runs under libfaketime with its wall clock stepped +1 h, −1 h
// and −1 h again while its listener fails slowly (every attempt in flight for 300 ms, so leases are
// held across the steps), then recovers. The monotonic clock stays real: only the wall clock jumps.
// Every event arrives once under one id, first attempts in block order, no attempt starts while
// another of the same event is in flight (no lease taken early), no retry waits past its back-off
// (an unfollowed −1 h step would hold them an hour), and nothing is dead-lettered (an unfollowed
// +1 h step ends the 5-minute retry window at once).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';
import { createFaketimeControl, faketimeMissing } from '../../testing/faketime.js';
import { startTestListener, type TestListener } from '../testing/testListener.js';
import { apiGet, createAddressWebhook, metricValue, rpc } from '../testing/serviceCalls.js';

const SENDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const built = existsSync(fileURLToPath(new URL('../../../dist/main.js', import.meta.url)));
const missing = faketimeMissing();
if (missing) console.warn(`\n!!! SKIPPED: clock-step faults need libfaketime: ${missing}\n`);

/** A failing attempt is answered after this long, so attempts are in flight when the clock steps. */
const SLOW_FAILURE_MS = 300;
/** The wall clock's offset (s) in each phase; each change is a step of ±1 h. */
const PHASES = [0, 3_600, 0, -3_600];

interface Arrival {
  eventId: string;
  hashes: string[];
  blockNums: number[];
  at: number;
  status: number;
}

describe.skipIf(missing !== null)('system clock stepped ±1 h during retries and leases (bin/tracehook.js under libfaketime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-clockstep-'));
  const faketime = createFaketimeControl(dir, { monotonic: 'real' });
  let listener: TestListener;
  let service: TracehookProcess | undefined;
  let up = false;
  beforeAll(async () => {
    if (!built) throw new Error('dist/ is missing: run `npm run build` before this suite');
    listener = await startTestListener(() => (up ? 200 : { status: 500, delayMs: SLOW_FAILURE_MS }));
  });
  afterAll(async () => {
    await service?.kill('SIGKILL');
    await listener.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('behavior: every event once under one id, first attempts in order, no lease taken early, no retry stalled, none dead-lettered', { timeout: 120_000 }, async () => {
    service = await spawnTracehook({ dataDir: join(dir, 'data'), from: 'build', env: faketime.env, args: ['--webhook-retry-window-sec', '300'] });
    const p = service;
    const webhookId = await createAddressWebhook(p, listener.url, [RECIPIENT]);
    const sent: string[] = [];
    for (const offset of PHASES) {
      faketime.setOffsetSec(offset);
      for (let i = 0; i < 3; i++) sent.push((await rpc(p, 'eth_sendTransaction', [{ from: SENDER, to: RECIPIENT, value: `0x${(1000 + sent.length).toString(16)}` }])) as string);
      await new Promise((r) => setTimeout(r, 3_000));
    }
    const recoveredAt = Date.now();
    up = true;
    const arrivals = (): Arrival[] =>
      listener.requests.map((r) => {
        const note = JSON.parse(r.body) as { id: string; event: { activity: { hash: string; blockNum: string }[] } };
        return { eventId: note.id, hashes: note.event.activity.map((a) => a.hash), blockNums: note.event.activity.map((a) => Number(a.blockNum)), at: r.receivedAt, status: r.status };
      });
    const delivered = () => new Set(arrivals().filter((a) => a.status === 200).flatMap((a) => a.hashes));
    await listener.waitFor(() => sent.every((h) => delivered().has(h)), 60_000).catch(() => undefined);
    const deliveredWithinMs = Date.now() - recoveredAt;
    const all = arrivals();

    // Every transaction arrived with a 200, under one event id.
    expect(sent.filter((h) => !delivered().has(h))).toEqual([]);
    const idsByHash = new Map<string, Set<string>>();
    for (const a of all) for (const h of a.hashes) idsByHash.set(h, (idsByHash.get(h) ?? new Set()).add(a.eventId));
    expect([...idsByHash].filter(([, ids]) => ids.size > 1)).toEqual([]);
    // First attempts in block order.
    const firstSeen = new Set<string>();
    const firstBlocks: number[] = [];
    for (const a of all) {
      if (firstSeen.has(a.eventId)) continue;
      firstSeen.add(a.eventId);
      firstBlocks.push(Math.min(...a.blockNums));
    }
    expect(firstBlocks).toEqual([...firstBlocks].sort((x, y) => x - y));
    // No attempt of an event began while another was still being answered (a lease taken early),
    // and none waited past its back-off: the n-th retry comes within base·2^(n−1) (1 s base, before
    // the jitter that only shortens it) of the previous answer, plus 3 s for polling on a busy machine.
    // An unfollowed −1 h step would hold them an hour.
    const gaps: number[] = [];
    const overdue: string[] = [];
    for (const id of firstSeen) {
      const times = all.filter((a) => a.eventId === id).map((a) => a.at);
      for (let n = 1; n < times.length; n++) {
        const gap = times[n]! - times[n - 1]!;
        gaps.push(gap);
        if (gap > 1_000 * 2 ** (n - 1) + SLOW_FAILURE_MS + 3_000) overdue.push(`${id} retry ${n}: ${gap} ms`);
      }
    }
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(SLOW_FAILURE_MS - 20);
    expect(overdue).toEqual([]);
    // Nothing dead-lettered early (the window is 5 minutes of real time).
    const failed = await apiGet<{ data: unknown[] }>(p, `/api/webhook-events?webhook_id=${webhookId}&status=failed`);
    expect(failed.data).toEqual([]);
    expect(await metricValue(p, 'tracehook_webhook_delivery_attempts_total{type="ADDRESS_ACTIVITY",outcome="failed"}')).toBe(0);
    // The steps reached the service and were followed (three of them, each about an hour).
    const steps = [...p.logs().matchAll(/"stepMs":(-?\d+)[^\n]*system clock stepped/g)].map((m) => Math.round(Number(m[1]) / 60_000));
    expect(steps).toEqual([60, -60, -60]);
    console.log(
      `clock steps=+1h,-1h,-1h transactions=${sent.length} events=${firstSeen.size} requests=${all.length} retried=${all.length - firstSeen.size} ` +
        `longest retry gap=${Math.max(...gaps)} ms, all delivered ${deliveredWithinMs} ms after recovery, dead-lettered=0, duplicates=0`,
    );
  });
});
