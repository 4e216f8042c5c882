// The trace queue in /metrics of a real service (the CLI from source, one trace worker): while a
// pay-as-you-go key's looping calls wait for the worker, the payg class shows them and the other
// classes show 0; the worker shows busy; once they are answered the queue is back to 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';

const LOOP = '0x00000000000000000000000000000000000000bc';
// JUMPDEST PUSH1 32 PUSH1 0 KECCAK256 POP PUSH1 0 JUMP: hashes until the timeout (the most CPU per
// unit of gas). The interpreter runs it at about 150 Mgas/s here, so the calls get a billion gas
// (the service's gas cap raised to match): seconds of work, well past their 400 ms timeout.
const LOOP_CODE = '0x5b602060002050600056';

/** `name{labels} value` lines of one metric, as label text → value. */
function seriesOf(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m?.[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

describe('tracehook_trace_queue_depth and tracehook_trace_workers (real CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-queue-metrics-'));
  let service: TracehookProcess | undefined;
  afterAll(async () => {
    await service?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('behavior: waiting traces are counted under their key tier; every class has a series', async () => {
    service = await spawnTracehook({ dataDir: dir, from: 'source', args: ['--trace-workers', '1', '--gas-cap', '1000000000'] });
    const { baseUrl, authToken } = service;
    const created = await fetch(`${baseUrl}/api/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-token': authToken },
      body: JSON.stringify({ name: 'queue-metrics', tier: 'payg' }),
    });
    expect(created.status).toBe(201);
    const { data: { api_key: apiKey } } = (await created.json()) as { data: { api_key: string } };
    const metrics = async () => (await fetch(`${baseUrl}/metrics`)).text();

    const idle = await metrics();
    expect(seriesOf(idle, 'tracehook_trace_queue_depth')).toEqual(
      new Map([
        ['{key_class="free"}', 0],
        ['{key_class="payg"}', 0],
        ['{key_class="enterprise"}', 0],
        ['{key_class="internal"}', 0],
      ]),
    );

    // Five looping calls of 400 ms each on one worker: one runs, four wait.
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'debug_traceCall', params: [{ to: LOOP, gas: '0x3b9aca00' }, 'latest', { tracer: 'callTracer', timeout: '400ms', stateOverrides: { [LOOP]: { code: LOOP_CODE } } }] });
    const answers = Array.from({ length: 5 }, (_, i) =>
      fetch(`${baseUrl}/v2/${apiKey}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call(i)) }).then((r) => r.json() as Promise<{ error?: { message: string } }>),
    );
    await vi.waitFor(
      async () => {
        const text = await metrics();
        expect(seriesOf(text, 'tracehook_trace_queue_depth').get('{key_class="payg"}')).toBeGreaterThanOrEqual(2);
        expect(seriesOf(text, 'tracehook_trace_queue_depth').get('{key_class="enterprise"}')).toBe(0);
        expect(seriesOf(text, 'tracehook_trace_workers').get('{state="busy"}')).toBe(1);
      },
      { timeout: 5_000, interval: 20 },
    );
    // Each looping call ends with geth's timeout error, not an answer.
    for (const answer of await Promise.all(answers)) expect(answer.error?.message).toMatch(/execution timeout/);
    const after = await metrics();
    expect(seriesOf(after, 'tracehook_trace_queue_depth').get('{key_class="payg"}')).toBe(0);
    expect(seriesOf(after, 'tracehook_trace_workers').get('{state="idle"}')).toBe(1);
  }, 60_000);
});
