// Bounded traces through the real service (HTTP, gateway, one trace worker): a struct log with
// memory of a memory-expanding call (a 258 MB answer once, and gigabytes of heap) and a vmTrace of
// large memory writes are refused with -32005 naming the cap, quickly, while the process's resident
// memory stays bounded and comes back; a trace afterwards still works; `limit` still truncates; a
// `timeout` above --trace-timeout-max-ms runs with the cap.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';

const MIB = 1024 * 1024;
const TIMEOUT_MAX_MS = 10_000;
/** Gas of the looping trace: about 250 M steps, minutes of work with the step listener. */
const LOOP_GAS = 1_000_000_000;
/** mstore(i, i) with i += 1024 until out of gas: memory grows by 1 KiB per 7 opcodes. */
const MEMORY_GROWER = { address: '0x00000000000000000000000000000000000000a1', code: '0x60005b80805261040001600256' };
/** mcopy(0, 0, 64 KiB) forever: every MCOPY writes 64 KiB that vmTrace shows in `mem`. */
const MEMORY_WRITER = { address: '0x00000000000000000000000000000000000000a2', code: '0x5b62010000600060005e600056' };
/** An infinite loop (JUMPDEST; PUSH1 0; JUMP). */
const LOOP = { address: '0x00000000000000000000000000000000000000a3', code: '0x5b600056' };
/** Expands memory to 1 MiB, then calls 0xaa with that whole MiB as input, forever (about 130 gas a call). */
const INPUT_BOMB = { address: '0x00000000000000000000000000000000000000a5', code: '0x6000620fffff535b60006000621000006000600060aa5af150600756' };
/** mstore(0, 42); return(0, 32): a small call with memory. */
const SMALL = { address: '0x00000000000000000000000000000000000000a4', code: '0x602a60005260206000f3' };
const OVERRIDES = Object.fromEntries([MEMORY_GROWER, MEMORY_WRITER, LOOP, SMALL, INPUT_BOMB].map((c) => [c.address, { code: c.code }]));

interface RpcAnswer {
  result?: unknown;
  error?: { code: number; message: string };
  /** Set instead of parsing an answer too large to compare (the test process would run out of heap). */
  answerBytes?: number;
}

/** Resident and peak resident memory of a process, bytes (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/** Resets the peak (VmHWM) to the current resident size. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

describe('bounded traces over HTTP (one trace worker)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tracehook-bounds-'));
  let service: TracehookProcess;
  let from: string;

  async function call(method: string, params: unknown[]): Promise<RpcAnswer> {
    const response = await fetch(service.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const text = await response.text();
    return text.length > 16 * MIB ? { answerBytes: text.length } : (JSON.parse(text) as RpcAnswer);
  }
  const traceCall = (to: string, gas: number, options: object) => call('debug_traceCall', [{ from, to, gas: `0x${gas.toString(16)}` }, 'latest', { ...options, stateOverrides: OVERRIDES }]);
  const vmTraceCall = (to: string, gas: number) => call('trace_call', [{ from, to, gas: `0x${gas.toString(16)}` }, ['vmTrace'], 'latest', OVERRIDES]);

  beforeAll(async () => {
    // A gas cap far above the default, so the looping trace below cannot end by running out of gas first.
    service = await spawnTracehook({ dataDir, args: ['--trace-workers', '1', '--trace-timeout-max-ms', String(TIMEOUT_MAX_MS), '--gas-cap', String(LOOP_GAS), '--log-level', 'warn'] });
    from = ((await call('eth_accounts', [])).result as string[])[0]!;
  }, 60_000);
  afterAll(async () => {
    await service?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('error: a struct log with memory past --trace-max-bytes is refused quickly; memory stays bounded and comes back', async () => {
    const pid = service.child.pid!;
    const small = await traceCall(SMALL.address, 100_000, { enableMemory: true, enableReturnData: true });
    expect(small.error).toBeUndefined();
    // Warm the worker on the heavy path, so the baseline includes its code and caches.
    expect((await traceCall(MEMORY_GROWER.address, 75_000, { enableMemory: true, limit: 20 })).error).toBeUndefined();
    const baseline = memoryOf(pid).rss;
    resetPeak(pid);

    const started = performance.now();
    const refused = await traceCall(MEMORY_GROWER.address, 75_000, { enableMemory: true, enableReturnData: true, timeout: '120s' });
    const elapsedMs = performance.now() - started;
    expect(refused).toMatchObject({ error: { code: -32005, message: expect.stringContaining(`trace output exceeds --trace-max-bytes (${64 * MIB} bytes)`) } });
    expect(refused.error!.message).toContain('enableMemory');
    expect(elapsedMs).toBeLessThan(10_000);
    // Without the cap this answer is about 200 MB of JSON built from a larger object tree.
    const grewBy = memoryOf(pid).peak - baseline;
    expect(grewBy, `peak grew by ${Math.round(grewBy / MIB)} MiB`).toBeLessThan(320 * MIB);

    // The same trace afterwards is answered alike, and a normal trace works.
    expect(await call('debug_traceCall', [{ from, to: MEMORY_GROWER.address, gas: '0x124f8' }, 'latest', { enableMemory: true, stateOverrides: OVERRIDES }])).toMatchObject({ error: { code: -32005 } });
    expect(await traceCall(SMALL.address, 100_000, { enableMemory: true, enableReturnData: true })).toEqual(small);

    // What the refused traces held is given back (V8 collects it on its own schedule).
    let rss = memoryOf(pid).rss;
    for (let i = 0; i < 40 && rss - baseline > 96 * MIB; i++) {
      await traceCall(SMALL.address, 100_000, { enableMemory: true });
      await new Promise((r) => setTimeout(r, 250));
      rss = memoryOf(pid).rss;
    }
    expect(rss - baseline, `resident memory ${Math.round((rss - baseline) / MIB)} MiB above the baseline`).toBeLessThan(96 * MIB);
  }, 60_000);

  it('behavior: `limit` truncates the same struct log below the cap', async () => {
    const answer = await traceCall(MEMORY_GROWER.address, 75_000, { enableMemory: true, limit: 300 });
    const result = answer.result as { failed: boolean; structLogs: { op: string; memory?: string[] }[] };
    expect(result.failed).toBe(true);
    expect(result.structLogs).toHaveLength(300);
    expect(result.structLogs[299]!.memory!.length).toBeGreaterThan(1000);
  });

  it('error: a vmTrace of large memory writes past --trace-max-bytes is refused quickly with bounded memory', async () => {
    const pid = service.child.pid!;
    const small = await vmTraceCall(SMALL.address, 100_000);
    expect(small.error).toBeUndefined();
    const baseline = memoryOf(pid).rss;
    resetPeak(pid);
    const started = performance.now();
    const refused = await vmTraceCall(MEMORY_WRITER.address, 10_000_000);
    expect(refused).toMatchObject({ error: { code: -32005, message: expect.stringContaining('trace output exceeds --trace-max-bytes') } });
    expect(refused.error!.message).toContain('vmTrace');
    expect(performance.now() - started).toBeLessThan(10_000);
    const grewBy = memoryOf(pid).peak - baseline;
    expect(grewBy, `peak grew by ${Math.round(grewBy / MIB)} MiB`).toBeLessThan(320 * MIB);
    expect(await vmTraceCall(SMALL.address, 100_000)).toEqual(small);
  }, 30_000);

  it('error: a struct log of a long loop past --trace-max-steps is refused with bounded memory', async () => {
    const pid = service.child.pid!;
    const baseline = memoryOf(pid).rss;
    resetPeak(pid);
    // Even without stack or storage, 16 million steps once meant gigabytes of recorded steps.
    const refused = await traceCall(LOOP.address, 50_000_000, { disableStack: true, disableStorage: true, timeout: '120s' });
    expect(refused).toMatchObject({ error: { code: -32005, message: 'trace exceeds --trace-max-steps (1000000 steps): trace fewer steps with `limit`' } });
    const grewBy = memoryOf(pid).peak - baseline;
    expect(grewBy, `peak grew by ${Math.round(grewBy / MIB)} MiB`).toBeLessThan(320 * MIB);
  }, 30_000);

  it('error: frames whose call data pass --trace-max-bytes are refused with bounded memory, in any format', async () => {
    const pid = service.child.pid!;
    const baseline = memoryOf(pid).rss;
    resetPeak(pid);
    // About 750 calls of 1 MiB input each: once 1.5 GB of callTracer JSON and an out-of-heap worker.
    const refused = [
      await traceCall(INPUT_BOMB.address, 2_300_000, { tracer: 'callTracer' }),
      await call('trace_call', [{ from, to: INPUT_BOMB.address, gas: '0x231860' }, ['trace'], 'latest', OVERRIDES]),
    ];
    for (const answer of refused) {
      expect(answer).toMatchObject({ error: { code: -32005, message: expect.stringContaining('trace output exceeds --trace-max-bytes') } });
      expect(answer.error!.message).toContain('input and return data of its calls');
    }
    const grewBy = memoryOf(pid).peak - baseline;
    expect(grewBy, `peak grew by ${Math.round(grewBy / MIB)} MiB`).toBeLessThan(320 * MIB);
  }, 30_000);

  it('behavior: mining such a transaction keeps memory bounded; its trace is refused, the chain goes on', async () => {
    const pid = service.child.pid!;
    expect((await call('anvil_setCode', [INPUT_BOMB.address, INPUT_BOMB.code])).error).toBeUndefined();
    const baseline = memoryOf(pid).rss;
    resetPeak(pid);
    const sent = await call('eth_sendTransaction', [{ from, to: INPUT_BOMB.address, gas: '0x231860' }]);
    const hash = sent.result as string;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The miner and the webhook follower record this transaction's frames without the inputs past 64 MiB.
    expect((await call('eth_getTransactionReceipt', [hash])).result).toMatchObject({ status: '0x0', gasUsed: '0x231860' });
    expect(await call('debug_traceTransaction', [hash, { tracer: 'callTracer' }])).toMatchObject({ error: { code: -32005 } });
    const grewBy = memoryOf(pid).peak - baseline;
    expect(grewBy, `peak grew by ${Math.round(grewBy / MIB)} MiB`).toBeLessThan(320 * MIB);
    expect((await call('eth_sendTransaction', [{ from, to: SMALL.address }])).error).toBeUndefined();
  }, 30_000);

  it('args: a timeout above --trace-timeout-max-ms runs with the cap', async () => {
    const started = performance.now();
    // With the step listener on (`limit` keeps nothing), the loop's gas takes far longer than the cap
    // (50M gas once did; a faster machine ran it out of gas in 7.6 s, hence LOOP_GAS).
    const looping = await traceCall(LOOP.address, LOOP_GAS, { limit: 1, timeout: '120s' });
    expect(looping).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: `execution timeout: exceeded ${TIMEOUT_MAX_MS} ms` } });
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MAX_MS + 5000);
    // Beyond what a Node timer holds (2^31 ms): once this made the pool kill the worker at once.
    const huge = await traceCall(SMALL.address, 100_000, { tracer: 'callTracer', timeout: '600h' });
    expect(huge).toMatchObject({ result: { type: 'CALL', output: `0x${'2a'.padStart(64, '0')}` } });
  }, 40_000);
});
