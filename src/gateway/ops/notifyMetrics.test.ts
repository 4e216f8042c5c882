// /metrics of a real service (the CLI from source): delivery attempts by webhook type and outcome
// with latency, retries pending and dead letters, the follower's head, cursor and lag per network,
// and the event loop's delay.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';

const SENDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

/** The value of one series line, e.g. `name{type="X",outcome="retrying"}`; undefined when absent. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m?.[1] === name && want.every((w) => (m[2] ?? '').includes(w))) return Number(m[3]);
  }
  return undefined;
}

describe('/metrics for webhooks, followers and the event loop (real CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-metrics-'));
  let service: TracehookProcess | undefined;
  let listener: Server | undefined;
  afterAll(async () => {
    await service?.kill('SIGKILL');
    listener?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('behavior: a listener failing three times shows as retrying attempts and retries pending by type; the follower lag is 0 at the head', async () => {
    let hits = 0;
    listener = createServer((req, res) => {
      req.resume().on('end', () => res.writeHead(++hits <= 3 ? 500 : 200).end());
    });
    await new Promise<void>((r) => listener!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/hook`;
    service = await spawnTracehook({ dataDir: join(dir, 'data') });
    const p = service;
    const created = await fetch(`${p.baseUrl}/api/create-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': p.authToken },
      body: JSON.stringify({ network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: url, addresses: [RECIPIENT] }),
    });
    expect(created.status).toBe(200);
    const rpc = (method: string, params: unknown[]) => fetch(p.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    await rpc('eth_sendTransaction', [{ from: SENDER, to: RECIPIENT, value: '0x1' }]);
    const scrape = async () => (await fetch(`${p.baseUrl}/metrics`)).text();

    // The first attempt fails (500): a retrying attempt, and (sampled) one delivery waiting to retry.
    let text = '';
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      text = await scrape();
      if (series(text, 'tracehook_webhook_delivery_attempts_total', { type: 'ADDRESS_ACTIVITY', outcome: 'retrying' })) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(series(text, 'tracehook_webhook_delivery_attempts_total', { type: 'ADDRESS_ACTIVITY', outcome: 'retrying' })).toBe(1);
    // Sampled within a second of the attempt; the retries (back-off 1 s, 2 s) are still ahead.
    while (Date.now() < deadline && series(text, 'tracehook_webhook_deliveries_retry_pending', { type: 'ADDRESS_ACTIVITY' }) !== 1) {
      await new Promise((r) => setTimeout(r, 100));
      text = await scrape();
    }
    expect(series(text, 'tracehook_webhook_deliveries_retry_pending', { type: 'ADDRESS_ACTIVITY' })).toBe(1);
    expect(series(text, 'tracehook_webhook_delivery_latency_seconds_count', { type: 'ADDRESS_ACTIVITY' })).toBeGreaterThanOrEqual(1);
    expect(series(text, 'tracehook_follower_head_block', { network: 'LOCAL' })).toBe(1);
    expect(series(text, 'tracehook_follower_cursor_block', { network: 'LOCAL' })).toBe(1);
    expect(series(text, 'tracehook_follower_lag_blocks', { network: 'LOCAL' })).toBe(0);
    expect(series(text, 'tracehook_event_loop_delay_seconds', { quantile: '0.99' })).toBeGreaterThan(0);
    expect(text).toMatch(/# TYPE tracehook_webhook_dead_letters gauge/);

    // The retry succeeds; the sampled gauges come back to 0 retries pending, 0 dead letters.
    const until = Date.now() + 25_000;
    while (Date.now() < until) {
      text = await scrape();
      if (series(text, 'tracehook_webhook_delivery_attempts_total', { type: 'ADDRESS_ACTIVITY', outcome: 'succeeded' }) === 1 && series(text, 'tracehook_webhook_deliveries_retry_pending', { type: 'ADDRESS_ACTIVITY' }) === undefined) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(series(text, 'tracehook_webhook_delivery_attempts_total', { type: 'ADDRESS_ACTIVITY', outcome: 'succeeded' })).toBe(1);
    expect(series(text, 'tracehook_webhook_delivery_attempts_total', { type: 'ADDRESS_ACTIVITY', outcome: 'retrying' })).toBe(3);
    expect(series(text, 'tracehook_webhook_deliveries_retry_pending', { type: 'ADDRESS_ACTIVITY' }) ?? 0).toBe(0);
    expect(series(text, 'tracehook_webhook_dead_letters', { type: 'ADDRESS_ACTIVITY' }) ?? 0).toBe(0);
  });
});
