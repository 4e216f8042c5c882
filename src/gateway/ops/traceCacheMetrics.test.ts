// The rendered-trace cache in /metrics of a real service (the CLI from source): a mined
// transaction's trace_transaction is in the cache before anyone asks for it (pre-rendered from the
// miner's kept record), and the series count it; with records off (--mined-trace-memory-mb 0)
// nothing is rendered until asked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';

const DEV_ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

function gaugeValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no ${name} in /metrics`);
  return Number(line.split(' ')[1]);
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const answer = (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

describe('tracehook_trace_cache_entries and _bytes (real CLI)', () => {
  const dirs: string[] = [];
  const services: TracehookProcess[] = [];
  afterAll(async () => {
    for (const s of services) await s.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function start(args: string[]): Promise<TracehookProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'tracehook-cache-metrics-'));
    dirs.push(dir);
    const service = await spawnTracehook({ dataDir: dir, from: 'source', args });
    services.push(service);
    return service;
  }

  it('behavior: a mined transaction\'s trace_transaction is cached before it is asked for; with records off it is not', async () => {
    const [withRecords, withoutRecords] = await Promise.all([start([]), start(['--mined-trace-memory-mb', '0'])]);
    for (const service of [withRecords, withoutRecords]) {
      const metrics = async () => (await fetch(`${service.baseUrl}/metrics`)).text();
      expect(gaugeValue(await metrics(), 'tracehook_trace_cache_entries')).toBe(0);
      const hash = (await rpc(service.rpcUrl, 'eth_sendTransaction', [{ from: DEV_ACCOUNT, to: '0x0000000000000000000000000000000000000001', value: '0x1' }])) as string;
      await vi.waitFor(async () => expect(await rpc(service.rpcUrl, 'eth_getTransactionReceipt', [hash])).not.toBeNull());
      if (service === withRecords) {
        await vi.waitFor(async () => expect(gaugeValue(await metrics(), 'tracehook_trace_cache_entries')).toBe(1), { timeout: 5000 });
        expect(gaugeValue(await metrics(), 'tracehook_trace_cache_bytes')).toBeGreaterThan(100);
      } else {
        // Long enough for a pre-render to have happened, were there one.
        await new Promise((r) => setTimeout(r, 300));
        expect(gaugeValue(await metrics(), 'tracehook_trace_cache_entries')).toBe(0);
      }
      const entries = (await rpc(service.rpcUrl, 'trace_transaction', [hash])) as { transactionHash: string }[];
      expect(entries[0]?.transactionHash).toBe(hash);
      expect(gaugeValue(await metrics(), 'tracehook_trace_cache_entries')).toBe(1);
    }
  }, 60_000);
});
