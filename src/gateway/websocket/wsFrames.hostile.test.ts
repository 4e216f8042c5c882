// Hostile WebSocket input against the real service (`tracehook start` from source, in a child
// process, so its memory is measured from /proc): random frame sequences (any opcode, reserved
// bits, unmasked frames, invalid UTF-8, fragments, control frames in between, binary frames),
// fragmented messages past the size limit, ping floods from a client that does not read, thousands
// of subscriptions, and malformed JSON-RPC. The service never crashes, answers each message with
// well-formed JSON-RPC or closes with a protocol code, names the parameter in -32602 errors, and
// its resident memory stays bounded.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnTracehook, type TracehookProcess } from '../../testing/spawnTracehook.js';
import { RawWsClient, encodeFrame, textFrame, type RawFrame } from './testing/rawWsClient.js';

const MAX_MESSAGE = 256 * 1024;
/** Close codes a server may use for bad input (RFC 6455 §7.4.1) or our bounds. */
const PROTOCOL_CLOSES = [1000, 1002, 1003, 1007, 1008, 1009];

const rssMb = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** One answer of the endpoint: a JSON-RPC response object or a batch of them. */
function isRpcAnswer(text: string): boolean {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return false;
  }
  const one = (x: unknown) =>
    typeof x === 'object' && x !== null && (x as { jsonrpc?: unknown }).jsonrpc === '2.0' && ('result' in x || ('error' in x && typeof (x as { error: { code?: unknown } }).error.code === 'number'));
  return Array.isArray(v) ? v.every(one) : one(v) || (v as { method?: unknown }).method === 'eth_subscription';
}

const frameArb: fc.Arbitrary<RawFrame> = fc.record({
  fin: fc.boolean(),
  rsv: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 7 })),
  opcode: fc.oneof(fc.constantFrom(0, 1, 2, 8, 9, 10), fc.integer({ min: 0, max: 15 })),
  masked: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  payload: fc.oneof(
    fc.uint8Array({ maxLength: 200 }),
    fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
    fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [v] }))),
    // Invalid UTF-8: lone continuation bytes, overlong forms, surrogates, truncated sequences.
    fc.constantFrom([0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xff]).map((b) => Uint8Array.from(b)),
  ),
});

describe('hostile WebSocket frames against the real service', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tracehook-wshostile-'));
  let service: TracehookProcess;
  let wsUrl: string;
  let baselineRss: number;

  const probe = async (): Promise<string> => {
    const c = await RawWsClient.open(wsUrl);
    c.write(textFrame('{"jsonrpc":"2.0","id":"probe","method":"eth_chainId"}'));
    await c.until(() => c.texts.length > 0);
    c.destroy();
    return c.texts[0] ?? '';
  };

  beforeAll(async () => {
    service = await spawnTracehook({ dataDir: join(dir, 'data'), args: ['--log-level', 'warn', '--max-body-bytes', String(MAX_MESSAGE)] });
    wsUrl = service.rpcUrl.replace(/^http/, 'ws');
    expect(await probe()).toBe('{"jsonrpc":"2.0","id":"probe","result":"0x7a69"}');
    baselineRss = rssMb(service.child.pid!);
  }, 90_000);
  afterAll(async () => {
    await service?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('error: random frame sequences end in answers or a close with a protocol code, never a hang or a crash', { timeout: 240_000 }, async () => {
    const closes = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(frameArb, { minLength: 1, maxLength: 8 }), async (frames) => {
        const c = await RawWsClient.open(wsUrl);
        try {
          for (const f of frames) c.write(encodeFrame(f));
          // A final request: answered when the frames left the connection usable, else the close came first.
          c.write(textFrame('{"jsonrpc":"2.0","id":"last","method":"eth_chainId"}'));
          const settled = await c.until(() => c.closeCode !== undefined || c.texts.some((t) => t.includes('"last"')), 10_000);
          expect(settled || c.ended, 'neither an answer nor a close').toBe(true);
          if (c.closeCode !== undefined) {
            // A close frame without a status gets one without a status back (RFC 6455 §5.5.1: the
            // reply echoes what was received), which the client reads as 1005, "no status".
            const sentBareClose = frames.some((f) => f.opcode === 8 && f.fin && f.rsv === 0 && f.payload.length === 0);
            // A close frame with a valid status (1000–1014 but 1004–1006, or 3000–4999, the ranges
            // registered for libraries and applications) gets that status back, as the RFC has it.
            const echoed = frames
              .filter((f) => f.opcode === 8 && f.fin && f.rsv === 0 && f.payload.length >= 2)
              .map((f) => (f.payload[0]! << 8) | f.payload[1]!)
              .filter((code) => (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999));
            expect([...PROTOCOL_CLOSES, ...(sentBareClose ? [1005] : []), ...echoed]).toContain(c.closeCode);
            closes.set(c.closeCode, (closes.get(c.closeCode) ?? 0) + 1);
          }
          for (const t of c.texts) expect(isRpcAnswer(t), t).toBe(true);
        } finally {
          c.destroy();
        }
      }),
      { numRuns: 150 },
    );
    expect(service.child.exitCode).toBeNull();
    expect(await probe()).toContain('"result":"0x7a69"');
    console.log(`ws frames: 150 random sequences, closes by code ${JSON.stringify(Object.fromEntries(closes))}`);
  });

  it('error: invalid UTF-8 in a text message closes with 1007; a binary frame of JSON-RPC is answered', async () => {
    const bad = await RawWsClient.open(wsUrl);
    bad.write(encodeFrame({ fin: true, rsv: 0, opcode: 1, masked: true, payload: Uint8Array.from([0x7b, 0xed, 0xa0, 0x80, 0x7d]) }));
    await bad.until(() => bad.closeCode !== undefined);
    expect(bad.closeCode).toBe(1007);
    const binary = await RawWsClient.open(wsUrl);
    binary.write(encodeFrame({ fin: true, rsv: 0, opcode: 2, masked: true, payload: Buffer.from('{"jsonrpc":"2.0","id":7,"method":"eth_chainId"}') }));
    await binary.until(() => binary.texts.length > 0);
    expect(binary.texts).toEqual(['{"jsonrpc":"2.0","id":7,"result":"0x7a69"}']);
    binary.destroy();
  });

  it('error: a fragmented message growing past the size limit, or of 20,000 fragments, closes (1009, 1008) before it is held whole', async () => {
    const c = await RawWsClient.open(wsUrl);
    const piece = Buffer.alloc(64 * 1024, 0x20);
    c.write(encodeFrame({ fin: false, rsv: 0, opcode: 1, masked: true, payload: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","x":"') }));
    // 200 pieces of 64 KiB (12.5 MiB) against a 256 KiB limit: the server must stop long before.
    for (let i = 0; i < 200 && !c.ended && c.closeCode === undefined; i++) {
      c.write(encodeFrame({ fin: false, rsv: 0, opcode: 0, masked: true, payload: piece }));
      await new Promise((r) => setImmediate(r));
    }
    await c.until(() => c.closeCode !== undefined);
    expect(c.closeCode).toBe(1009);
    c.destroy();
    expect(await probe()).toContain('0x7a69');
    // Many tiny fragments are bounded too (ws allows 16,384 per message): 20,000 empty ones end the connection with 1008.
    const tiny = await RawWsClient.open(wsUrl);
    tiny.write(encodeFrame({ fin: false, rsv: 0, opcode: 1, masked: true, payload: Buffer.from('{') }));
    const empty = encodeFrame({ fin: false, rsv: 0, opcode: 0, masked: true, payload: Buffer.alloc(0) });
    tiny.write(Buffer.concat(Array.from({ length: 20_000 }, () => empty)));
    await tiny.until(() => tiny.closeCode !== undefined);
    expect(tiny.closeCode).toBe(1008);
    tiny.destroy();
  });

  it('error: a ping flood from a client that never reads is cut off (ws ends a connection owing 60 pongs); memory stays bounded', { timeout: 120_000 }, async () => {
    const before = rssMb(service.child.pid!);
    const clients: RawWsClient[] = [];
    // 4 clients × 100,000 pings of 125 bytes (50 MiB of pongs owed) that never read an answer.
    for (let k = 0; k < 4; k++) {
      const c = await RawWsClient.open(wsUrl);
      c.socket.pause();
      clients.push(c);
    }
    const ping = encodeFrame({ fin: true, rsv: 0, opcode: 9, masked: true, payload: Buffer.alloc(125, 0x61) });
    const batch = Buffer.concat(Array.from({ length: 1000 }, () => ping));
    let peak = before;
    for (let i = 0; i < 100; i++) {
      for (const c of clients) c.write(batch);
      await new Promise((r) => setTimeout(r, 10));
      peak = Math.max(peak, rssMb(service.child.pid!));
    }
    // Each connection is ended (its pongs were not read), and the service still answers others.
    for (const c of clients) {
      c.socket.resume();
      await c.until(() => c.ended, 15_000);
      expect(c.ended).toBe(true);
    }
    expect(await probe()).toContain('0x7a69');
    console.log(`ws ping flood: RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB; closes ${clients.map((c) => c.closeCode).join(',')}; written ${clients.map((c) => c.socket.bytesWritten).join(',')}`);
    expect(peak - before).toBeLessThan(40);
  });

  it('error: thousands of subscriptions get -32005 naming the bound past 100 per connection and 1,000 per key; memory stays bounded', { timeout: 120_000 }, async () => {
    const clients: RawWsClient[] = [];
    let ok = 0;
    const refusals = new Set<string>();
    for (let k = 0; k < 15; k++) {
      const c = await RawWsClient.open(wsUrl);
      clients.push(c);
      // 200 per connection, sent as batches of 50.
      for (let b = 0; b < 4; b++) {
        c.write(textFrame(JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', id: b * 50 + i, method: 'eth_subscribe', params: ['newHeads'] })))));
      }
      await c.until(() => c.texts.length === 4, 20_000);
      for (const t of c.texts) {
        for (const a of JSON.parse(t) as { result?: string; error?: { code: number; message: string } }[]) {
          if (a.result) ok++;
          else {
            expect(a.error!.code).toBe(-32005);
            refusals.add(a.error!.message.replace(/\d+/g, 'N'));
          }
        }
      }
    }
    expect(ok).toBe(1000);
    expect([...refusals].sort()).toEqual([
      'too many subscriptions for this API key (limit N over all its connections); end some with eth_unsubscribe',
      'too many subscriptions on this connection (limit N); end some with eth_unsubscribe',
    ]);
    for (const c of clients) c.destroy();
    // Closed connections give their share back.
    await new Promise((r) => setTimeout(r, 300));
    const again = await RawWsClient.open(wsUrl);
    again.write(textFrame('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}'));
    await again.until(() => again.texts.length > 0);
    expect(again.texts[0]).toMatch(/"result":"0x[0-9a-f]{32}"/);
    again.destroy();
    expect(rssMb(service.child.pid!) - baselineRss).toBeLessThan(150);
  });

  it('error: malformed JSON-RPC messages each get one well-formed error; wrong parameters are -32602 naming the parameter', { timeout: 180_000 }, async () => {
    const c = await RawWsClient.open(wsUrl);
    const methods = ['eth_getBalance', 'eth_getBlockByNumber', 'eth_call', 'eth_getLogs', 'eth_subscribe', 'eth_getTransactionByHash', 'debug_traceTransaction', 'eth_unsubscribe'];
    const samples: string[] = [];
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
          fc.record({ method: fc.constantFrom(...methods), params: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) }).map((r) => JSON.stringify({ jsonrpc: '2.0', id: 'p', ...r })),
        ),
        async (text) => {
          if (Buffer.byteLength(text) === 0) return;
          const before = c.texts.length;
          c.write(textFrame(text));
          sent++;
          const answered = await c.until(() => c.texts.length > before, 10_000);
          expect(answered, `no answer to ${text}`).toBe(true);
          const answer = c.texts[c.texts.length - 1]!;
          expect(isRpcAnswer(answer), answer).toBe(true);
          const parsed = JSON.parse(answer) as { error?: { code: number; message: string } };
          if (!Array.isArray(parsed) && parsed.error?.code === -32602) {
            // The parameter is named: by position, by its name, or by the field inside it.
            expect(parsed.error.message, text).toMatch(/argument|param/i);
            if (samples.length < 5) samples.push(parsed.error.message);
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(c.closeCode).toBeUndefined();
    c.destroy();
    console.log(`ws malformed JSON-RPC: ${sent} messages; -32602 samples: ${samples.join(' | ')}`);
  });
});
