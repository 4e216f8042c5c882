// The trace pool's scheduling and failure handling, with a stand-in worker that hangs or dies on
// purpose (testing/misbehavingWorker.ts): a stuck worker is terminated and replaced and its job
// fails with the timeout error; a crash fails only the crashed job with an InternalError; a full
// queue refuses new jobs with LimitExceededError; keys are served in turn and held to their share;
// a job whose client goes away leaves the queue, or is cancelled in its worker; a job a worker holds
// survives that worker's death and is taken back when another worker goes idle; a worker holds one
// more job while its jobs are short.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InternalError, LimitExceededError } from '../../rpc/errors.js';
import { ExecutionCancelledError, ExecutionTimeoutError } from '../execute/executionGuard.js';
import type { TraceJob } from './traceJob.js';
import { type TracePool, createTracePool } from './tracePool.js';

const WORKER = { dataDir: '/nonexistent', chainId: 1n, hardfork: 'prague', gasCap: 1n };
const workerUrl = new URL('./testing/misbehavingWorker.ts', import.meta.url);
const base = { blockHash: new Uint8Array(32), render: { format: 'parityTrace' } } as const;
const answer = (timeoutMs = 100): TraceJob => ({ kind: 'calls', blockHash: base.blockHash, stateRoot: new Uint8Array(32), calls: [], timeoutMs });
const hang = (timeoutMs: number): TraceJob => ({ ...base, kind: 'transaction', index: 0, context: { logIndexOffset: 0 }, timeoutMs });
const crash = (): TraceJob => ({ ...base, kind: 'block', timeoutMs: 5000 });
/** The error a run fails with (caught at once, so no rejection goes unhandled meanwhile). */
const failure = (run: Promise<unknown>): Promise<unknown> => run.then(() => new Error('expected a failure'), (error: unknown) => error);

describe('createTracePool', () => {
  let pool: TracePool | undefined;
  afterEach(async () => pool?.close());

  it('default: jobs queue for the workers and each gets its answer', async () => {
    pool = createTracePool({ size: 2, worker: WORKER, workerUrl });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const answers = await Promise.all([answer(1000), answer(1000), answer(1000), answer(1000)].map((job) => pool!.run(job)));
    expect(new Set(answers.flat()).size).toBe(2);
    expect(pool.stats()).toEqual({ workers: 2, starting: 0, busy: 0, ahead: 0, queued: 0, queuedKeys: 0, queuedByClass: {}, replaced: 0, cancelled: 0 });
  });

  it('behavior: a worker holds its next job; with another worker idle and nothing waiting, the held job is taken back and runs there', async () => {
    pool = createTracePool({ size: 2, worker: WORKER, workerUrl });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const done: string[] = [];
    const track = (label: string, run: Promise<string[]>) => run.then(([thread]) => (done.push(label), thread));
    const long = track('long', pool.run(answer(5000))); // 500 ms on the first worker
    const short = track('short', pool.run(answer(300))); // 30 ms on the second
    const held = track('held', pool.run(answer(100))); // held by the first worker, behind `long`
    expect(pool.stats()).toMatchObject({ busy: 2, ahead: 1, queued: 0 });
    const [longThread, shortThread, heldThread] = await Promise.all([long, short, held]);
    // The second worker went idle and took the held job instead of it waiting out `long`.
    expect(done).toEqual(['short', 'held', 'long']);
    expect(heldThread).toBe(shortThread);
    expect(heldThread).not.toBe(longThread);
    expect(pool.stats()).toMatchObject({ busy: 0, ahead: 0, queued: 0, replaced: 0 });
  });

  it('error: a worker stuck past the timeout is terminated and replaced; its job fails with the timeout error', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl, killGraceMs: 50 });
    const [before] = await pool.run(answer());
    const started = performance.now();
    const stuck = failure(pool.run(hang(100)));
    // Held by the stuck worker: it runs on the replacement, not fails with it.
    const queued = pool.run(answer());
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 1 });
    const error = await stuck;
    expect(error).toBeInstanceOf(ExecutionTimeoutError);
    expect((error as Error).message).toBe('execution timeout: exceeded 100 ms');
    expect(performance.now() - started).toBeLessThan(2000);
    const [after] = await queued;
    expect(after).not.toBe(before);
    expect(pool.stats()).toMatchObject({ workers: 1, replaced: 1 });
  });

  it('error: a job that hangs after another times out at its own deadline, whether that is later or earlier than the first job’s', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl, killGraceMs: 50 });
    await pool.run(answer());
    // Later: the first job's deadline (10 ms of work, 150 ms allowed) passes while the second runs.
    let started = performance.now();
    void pool.run(answer(100));
    let error = await failure(pool.run(hang(600)));
    expect((error as Error).message).toBe('execution timeout: exceeded 600 ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(600);
    expect(performance.now() - started).toBeLessThan(2000);
    // Earlier: the first job allows 3 s, the hanging one behind it 800 ms.
    started = performance.now();
    void pool.run(answer(3000));
    error = await failure(pool.run(hang(800)));
    expect((error as Error).message).toBe('execution timeout: exceeded 800 ms');
    expect(performance.now() - started).toBeLessThan(2500);
  });

  it('error: a crash fails only the crashed job (InternalError) and the worker is replaced', async () => {
    pool = createTracePool({ size: 2, worker: WORKER, workerUrl });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const slow = pool.run(answer(3000));
    const crashing = failure(pool.run(crash()));
    // Held by the crashing worker (the other one holds nothing yet): it runs on the replacement.
    const held = pool.run(answer(100));
    expect(pool.stats()).toMatchObject({ busy: 2, ahead: 1 });
    const error = await crashing;
    expect(error).toBeInstanceOf(InternalError);
    expect((error as InternalError).details).toBe('trace worker exited with code 3');
    expect(await held).toHaveLength(1);
    expect(await slow).toHaveLength(1);
    expect(await pool.run(answer())).toHaveLength(1);
    expect(pool.stats()).toMatchObject({ workers: 2, replaced: 1 });
  });

  it('error: with the queue full a new job fails at once with LimitExceededError (-32005); room frees as jobs start', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl, maxQueuedJobs: 2 });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const running = pool.run(answer(1000));
    const held = pool.run(answer(1000));
    const waiting = [pool.run(answer(1000)), pool.run(answer(1000))];
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 1, queued: 2 });
    const error = await failure(pool.run(answer()));
    expect(error).toBeInstanceOf(LimitExceededError);
    expect((error as LimitExceededError).code).toBe(-32005);
    expect((error as Error).message).toMatchInlineSnapshot(`"trace queue is full (2 traces waiting); retry later"`);
    await running;
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 1, queued: 1 });
    expect(await Promise.all([held, ...waiting, pool.run(answer())])).toHaveLength(4);
  });

  it('default: up to 256 jobs wait', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl });
    const waiting = Array.from({ length: 256 }, () => failure(pool!.run(answer())));
    expect(pool.stats().queued).toBe(256);
    expect(await failure(pool.run(answer()))).toBeInstanceOf(LimitExceededError);
    await pool.close();
    for (const w of await Promise.all(waiting)) expect(w).toBeInstanceOf(InternalError);
  });

  it('error: a closed pool refuses jobs and fails those still waiting', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl });
    const running = failure(pool.run(answer(1000)));
    const waiting = failure(pool.run(answer(1000)));
    await pool.close();
    expect(await running).toBeInstanceOf(InternalError);
    expect(await waiting).toBeInstanceOf(InternalError);
    await expect(pool.run(answer())).rejects.toThrow('trace pool is closed');
  });

  it('behavior: while its jobs are short a worker holds two behind the one it runs, else one', async () => {
    // Short: answers within 50 ms (these take about 1 ms); long: 200 ms each.
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl, shortJobMs: 50 });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const flood = (timeoutMs: number) => Promise.all(Array.from({ length: 6 }, () => pool!.run(answer(timeoutMs))));
    for (let i = 0; i < 3; i++) await pool.run(answer(10));
    let burst = flood(10);
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 2, queued: 3 });
    await burst;
    for (let i = 0; i < 3; i++) await pool.run(answer(2000));
    burst = flood(2000);
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 1, queued: 4 });
    await burst;
  });

  it('behavior: keys are served in turn: a second key waits behind one job of the first, not its backlog', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const order: string[] = [];
    const run = (key: string, label: string) => pool!.run(answer(500), { clientKey: key }).then(() => order.push(label));
    const a = Array.from({ length: 5 }, (_, i) => run('A', `A${i}`));
    const b = run('B', 'B0');
    await Promise.all([...a, b]);
    // A0 was running and A1 held by the worker when B arrived; B0 comes right after A1 (A's
    // turn), not after A4.
    expect(order).toEqual(['A0', 'A1', 'B0', 'A2', 'A3', 'A4']);
  });

  it('error: a key beyond its share fails with -32005 for this key while another key is still admitted', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl, maxQueuedJobs: 16, minKeyShare: 2 });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const flood = Array.from({ length: 20 }, () => failure(pool!.run(answer(200), { clientKey: 'A', keyClass: 'payg' })));
    // One runs, one is held by the worker, 16 wait (A alone holds the whole queue), 2 are refused.
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 1, queued: 16, queuedKeys: 1, queuedByClass: { payg: 16 } });
    const b = pool.run(answer(200), { clientKey: 'B', keyClass: 'enterprise' });
    // B is under its share (8 of 16 with two keys): A's newest waiting job gives up its place.
    expect(pool.stats()).toMatchObject({ queued: 16, queuedKeys: 2, queuedByClass: { payg: 15, enterprise: 1 } });
    // A holds more than its share now: it is refused for this key.
    expect(await failure(pool.run(answer(200), { clientKey: 'A' }))).toMatchObject({
      code: -32005,
      message: 'trace queue is full for this key (its share is 8 of 16 places while 2 keys wait); retry later',
    });
    expect(await b).toHaveLength(1);
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((e) => (e as Error).message === 'expected a failure')).toHaveLength(17);
    const errors = outcomes.filter((e) => e instanceof LimitExceededError).map((e) => e.message);
    // A's 18th (its newest waiting) was pushed out for B; the last two were refused while A was
    // alone in a full queue.
    expect(errors).toEqual([
      'trace queue is full for this key (its share is 8 of 16 places while 2 keys wait); retry later',
      'trace queue is full (16 traces waiting); retry later',
      'trace queue is full (16 traces waiting); retry later',
    ]);

  });

  it('behavior: a waiting job whose signal aborts leaves the queue at once with ExecutionCancelledError', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const running = pool.run(answer(1000));
    const client = new AbortController();
    const waiting = Array.from({ length: 50 }, () => failure(pool!.run(answer(1000), { signal: client.signal, clientKey: 'A' })));
    // The first is held by the worker, the rest wait in the queue: all leave.
    expect(pool.stats()).toMatchObject({ ahead: 1, queued: 49 });
    client.abort();
    expect(pool.stats()).toMatchObject({ queued: 0, queuedKeys: 0, cancelled: 50 });
    // The held one leaves when the worker answers the cancel.
    await vi.waitFor(() => expect(pool!.stats().ahead).toBe(0), { timeout: 1000, interval: 5 });
    for (const error of await Promise.all(waiting)) expect(error).toBeInstanceOf(ExecutionCancelledError);
    expect(await running).toHaveLength(1);
    await expect(pool.run(answer(), { signal: client.signal })).rejects.toBeInstanceOf(ExecutionCancelledError);
  });

  it('behavior: a scope with onCancel is listened to instead of its signal: waiting, held and running jobs leave when it fires; settled jobs take their listener off', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const listeners = new Set<() => void>();
    let gone = false;
    const scope = {
      clientKey: 'A',
      get signal(): AbortSignal {
        throw new Error('the pool read the signal');
      },
      onCancel: (listener: () => void) => (gone ? undefined : (listeners.add(listener), () => void listeners.delete(listener))),
    };
    // Answered jobs leave nothing behind.
    expect(await pool.run(answer(100), scope)).toHaveLength(1);
    expect(listeners.size).toBe(0);
    const jobs = Array.from({ length: 5 }, () => failure(pool!.run(answer(60_000), scope)));
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 1, queued: 3 });
    expect(listeners.size).toBe(5);
    gone = true;
    for (const listener of [...listeners]) listener();
    expect(pool.stats()).toMatchObject({ queued: 0, cancelled: 5 });
    expect(listeners.size).toBe(0);
    for (const error of await Promise.all(jobs)) expect(error).toBeInstanceOf(ExecutionCancelledError);
    // The worker drops the held job, stops the running one and stays.
    expect(await pool.run(answer(100))).toHaveLength(1);
    await expect(pool.run(answer(), scope)).rejects.toBeInstanceOf(ExecutionCancelledError);
    expect(pool.stats()).toMatchObject({ workers: 1, replaced: 0 });
  });

  it('behavior: a running job whose signal aborts is cancelled in its worker, which stays (not replaced) and takes the next job', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const client = new AbortController();
    const cancelled = failure(pool.run(answer(60_000), { signal: client.signal }));
    const next = pool.run(answer(100));
    expect(pool.stats()).toMatchObject({ busy: 1, ahead: 1, queued: 0 });
    const started = performance.now();
    client.abort();
    expect(await cancelled).toBeInstanceOf(ExecutionCancelledError);
    expect(await next).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(pool.stats()).toMatchObject({ workers: 1, replaced: 0, cancelled: 1 });
  });

  it('error: a worker that ignores a cancel is terminated and replaced after the grace', async () => {
    pool = createTracePool({ size: 1, worker: WORKER, workerUrl, killGraceMs: 100 });
    await vi.waitFor(() => expect(pool!.stats().starting).toBe(0), { timeout: 20_000 });
    const client = new AbortController();
    const stuck = failure(pool.run(hang(60_000), { signal: client.signal }));
    const next = pool.run(answer(100));
    client.abort();
    expect(await stuck).toBeInstanceOf(ExecutionCancelledError);
    expect(await next).toHaveLength(1);
    expect(pool.stats()).toMatchObject({ workers: 1, replaced: 1, cancelled: 1 });
  });
});
