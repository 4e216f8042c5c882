// Hostile upstream answers against the real service (`tracehook start --upstream` from source, in
// a child process): a misbehaving server in front of a real anvil answers chosen calls with what
// fast-check makes of the honest answer: other ids, truncated bodies, wrong types in results, deep
// nesting, garbage, both result and error, odd error codes, non-200 statuses, slow drips past the
// upstream deadline, and (once) a 60 MiB answer. Each client call gets a well-formed JSON-RPC
// answer with its own id; asked again once the upstream is honest, every call answers exactly
// what anvil does, so nothing hostile stayed in the cache; the service never dies and its memory
// stays bounded. No hostile answer ends in the anonymous "Internal error" of an unexpected failure.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';
import { startAnvil, type AnvilProcess } from '../../testing/startAnvil.js';
import { startMisbehavingUpstream, type MisbehavingUpstream, type ScriptedAnswer } from './testing/misbehavingUpstream.js';

const DEV0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const DEV1 = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const rssMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

type Call = [method: string, params: unknown[]];
type Rpc = { jsonrpc?: string; id?: unknown; result?: unknown; error?: { code: unknown; message: unknown } };

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
  return { status: res.status, text: await res.text() };
}

/** How one hostile answer is made from the honest one (`answer` is the targeted call's element). */
type Corruption = { kind: string; make: (honestText: string, answer: Rpc) => ScriptedAnswer };

const withAnswer = (answer: Rpc, patch: Record<string, unknown>) => JSON.stringify({ ...answer, ...patch });
const corruptionArb: fc.Arbitrary<Corruption> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }).map((id) => ({ kind: 'wrong id', make: (_t: string, a: Rpc) => ({ body: withAnswer(a, { id }) }) })),
  fc.double({ min: 0, max: 0.99, noNaN: true }).map((f) => ({ kind: 'truncated', make: (t: string) => ({ body: t.slice(0, Math.floor(t.length * f)) }) })),
  fc.jsonValue({ maxDepth: 3 }).map((result) => ({ kind: 'wrong type', make: (_t: string, a: Rpc) => ({ body: withAnswer(a, { result }) }) })),
  fc.integer({ min: 65, max: 200_000 }).map((n) => ({ kind: 'deep nesting', make: (_t: string, a: Rpc) => ({ body: `{"jsonrpc":"2.0","id":${JSON.stringify(a.id)},"result":${'['.repeat(n)}${']'.repeat(n)}}` }) })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ kind: 'garbage', make: () => ({ body: Buffer.from(bytes) }) })),
  fc.tuple(fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 })).map(([code, message]) => ({
    kind: 'odd error',
    make: (_t: string, a: Rpc) => ({ body: JSON.stringify({ jsonrpc: '2.0', id: a.id, error: { code, message } }) }),
  })),
  fc.constant({ kind: 'result and error', make: (_t: string, a: Rpc) => ({ body: withAnswer(a, { error: { code: -32000, message: 'both' } }) }) }),
  fc.constant({ kind: 'no jsonrpc', make: (_t: string, a: Rpc) => ({ body: JSON.stringify({ id: a.id, result: a.result }) }) }),
  fc.constantFrom(500, 502, 429, 302, 404).map((status) => ({ kind: `HTTP ${status}`, make: (t: string) => ({ status, body: t }) })),
  fc.constant({ kind: 'slow drip', make: (t: string) => ({ body: t, dripBytes: 1, dripEveryMs: 100 }) }),
);

describe('hostile upstream answers against the real service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-uphostile-'));
  let anvil: AnvilProcess;
  let upstream: MisbehavingUpstream;
  let service: TracehookProcess;
  let calls: Call[];
  let baselineRss: number;

  const anvilAnswer = async ([method, params]: Call) => (JSON.parse((await post(anvil.url, { jsonrpc: '2.0', id: 1, method, params })).text) as Rpc).result;
  /** Asks the service until an answer comes from the upstream (a cool-down may refuse for a while). */
  const settledAnswer = async ([method, params]: Call): Promise<unknown> => {
    const deadline = Date.now() + 40_000;
    for (;;) {
      const a = JSON.parse((await post(service.rpcUrl, { jsonrpc: '2.0', id: 'again', method, params })).text) as Rpc;
      if (!a.error || Date.now() > deadline) return a.error ? a : a.result;
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++) hashes.push((JSON.parse((await post(anvil.url, { jsonrpc: '2.0', id: 1, method: 'eth_sendTransaction', params: [{ from: DEV0, to: DEV1, value: '0x1' }] })).text) as Rpc).result as string);
    // Enough blocks on top that the first ones are final, so their answers may enter the cache.
    await post(anvil.url, { jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x80'] });
    const block1 = (await anvilAnswer(['eth_getBlockByNumber', ['0x1', false]])) as { hash: string };
    calls = [
      ['eth_getBlockByHash', [block1.hash, false]],
      ['eth_getTransactionReceipt', [hashes[0]]],
      ['eth_getTransactionByHash', [hashes[1]]],
      ['eth_getBlockByNumber', ['0x2', true]],
      ['debug_traceTransaction', [hashes[2], { tracer: 'callTracer' }]],
      ['eth_getBalance', [DEV1, '0x2']],
      ['eth_getTransactionCount', [DEV0, '0x3']],
    ];
    upstream = await startMisbehavingUpstream({ target: anvil.url });
    service = await spawnTracehook({ dataDir: join(dir, 'data'), args: ['--log-level', 'warn', '--upstream', upstream.url, '--upstream-timeout-ms', '2000'] });
    // The first network served is the upstream one: it knows anvil's transactions.
    expect(await settledAnswer(calls[1]!)).toEqual(await anvilAnswer(calls[1]!));
    baselineRss = rssMb(service.child.pid!);
  }, 120_000);
  afterAll(async () => {
    await service?.kill('SIGKILL');
    await upstream?.close();
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Makes the upstream answer `call` (alone or inside a batch) with `corruption`, everything else honestly. */
  function aim(call: Call, corruption: Corruption): void {
    const key = JSON.stringify(call);
    upstream.script = (sent, honest) => {
      const at = sent.findIndex((c) => JSON.stringify([c.method, c.params]) === key);
      if (at < 0) return undefined;
      const parsed = JSON.parse(honest) as Rpc | Rpc[];
      const one = Array.isArray(parsed) ? (parsed.find((a) => a.id === sent[at]!.id) ?? parsed[0]!) : parsed;
      const made = corruption.make(Array.isArray(parsed) ? JSON.stringify(one) : honest, one);
      if (!Array.isArray(parsed) || corruption.kind.startsWith('HTTP') || corruption.kind === 'slow drip' || corruption.kind === 'truncated' || corruption.kind === 'garbage') return made;
      // In a batch, only the targeted element is replaced.
      return { ...made, body: `[${parsed.map((a) => (a === one ? String(made.body) : JSON.stringify(a))).join(',')}]` };
    };
  }

  it('error: every hostile answer reaches the client as well-formed JSON-RPC with its id; nothing hostile is cached', { timeout: 600_000 }, async () => {
    const kinds = new Map<string, number>();
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 1000 }), corruptionArb, fc.integer({ min: 1, max: 1e9 }), async (which, corruption, id) => {
        const call = calls[which % calls.length]!;
        aim(call, corruption);
        kinds.set(corruption.kind, (kinds.get(corruption.kind) ?? 0) + 1);
        let reply: { status: number; text: string };
        try {
          reply = await post(service.rpcUrl, { jsonrpc: '2.0', id, method: call[0], params: call[1] });
        } finally {
          upstream.script = undefined;
        }
        expect(reply.status, reply.text).toBe(200);
        const a = JSON.parse(reply.text) as Rpc;
        expect(a.jsonrpc).toBe('2.0');
        expect(a.id).toBe(id);
        expect('result' in a !== 'error' in a, reply.text).toBe(true);
        if (a.error) {
          expect(typeof a.error.code, reply.text).toBe('number');
          expect(typeof a.error.message, reply.text).toBe('string');
          codes.set(String(a.error.code), (codes.get(String(a.error.code)) ?? 0) + 1);
          // A clear error, never an internal one (found: 100,000-level nesting overflowed a later walk).
          expect(a.error.message, `${corruption.kind} on ${call[0]}`).not.toMatch(/^Internal error/);
        }
        // Honest again: the same call answers exactly what the node does (no hostile answer was kept).
        expect(await settledAnswer(call), `${corruption.kind} on ${call[0]}`).toEqual(await anvilAnswer(call));
      }),
      { numRuns: 120 },
    );
    expect(service.child.exitCode).toBeNull();
    const rss = rssMb(service.child.pid!);
    console.log(`upstream answers: 120 hostile answers by kind ${JSON.stringify(Object.fromEntries(kinds))}; client error codes ${JSON.stringify(Object.fromEntries(codes))}; RSS ${baselineRss.toFixed(0)} → ${rss.toFixed(0)} MiB`);
    expect(rss - baselineRss).toBeLessThan(200);
  });

  it('error: a 60 MiB answer and one that never ends are refused or cut at the deadline; memory returns', { timeout: 180_000 }, async () => {
    // A call the cache never keeps, so every ask reaches the upstream.
    const call: Call = ['eth_getBalance', [DEV1, 'latest']];
    // Growth is measured from here: what the previous test's 120 answers left to collect is that
    // test's to bound (it does), not this one's.
    const startRss = rssMb(service.child.pid!);
    const big = `{"jsonrpc":"2.0","id":0,"result":"0x${'ab'.repeat(30 * 1024 * 1024)}"}`;
    upstream.script = (sent) => (sent.some((c) => c.method === call[0]) ? { body: big.replace('"id":0', `"id":${JSON.stringify(sent[0]!.id)}`) } : undefined);
    const huge = JSON.parse((await post(service.rpcUrl, { jsonrpc: '2.0', id: 1, method: call[0], params: call[1] })).text) as Rpc;
    expect(huge.id).toBe(1);
    upstream.script = (sent) => (sent.some((c) => c.method === call[0]) ? { body: ' '.repeat(1_000_000), dripBytes: 10, dripEveryMs: 10 } : undefined);
    const endless = JSON.parse((await post(service.rpcUrl, { jsonrpc: '2.0', id: 2, method: call[0], params: call[1] })).text) as Rpc;
    upstream.script = undefined;
    expect(endless.error?.code, JSON.stringify(endless)).toEqual(expect.any(Number));
    expect(await settledAnswer(call)).toEqual(await anvilAnswer(call));
    console.log(`upstream answers: 60 MiB answer → ${huge.error ? `error ${huge.error.code}` : 'passed through'}; endless drip → error ${endless.error?.code}: ${String(endless.error?.message).slice(0, 120)}`);
    // Bounded: a 60 MiB answer is held at once as its bytes, its text, the parsed value and the
    // written answer (about 5x its size, 300 MiB); those copies are garbage once it is sent, and
    // the service starts a major collection half a second after such an answer
    // (largeAnswerGc.ts: without it the pages stayed mapped, 260-350 MiB, for all 20 s). Within
    // 20 s the process must be within 2x the answer of where this test started.
    const bound = 2 * 60;
    const deadline = Date.now() + 20_000;
    let grown = rssMb(service.child.pid!) - startRss;
    while (grown >= bound && Date.now() < deadline) {
      await settledAnswer(['eth_blockNumber', []]);
      await new Promise((r) => setTimeout(r, 250));
      grown = rssMb(service.child.pid!) - startRss;
    }
    console.log(`upstream answers: RSS ${startRss.toFixed(0)} MiB before the 60 MiB answer, ${(startRss + grown).toFixed(0)} MiB at the end (bound ${bound} MiB above)`);
    expect(grown).toBeLessThan(bound);
  });
});
