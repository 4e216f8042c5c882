// Test support: a small node:http JSON-RPC server in front of a real node that passes requests
// through, or misbehaves on chosen methods: hangs, resets the connection, answers HTTP 200 with
// garbage, answers another request's id, the wrong chain id, a huge body, blocks of another fork,
// or -32601 for a method it answered before; or, through `script`, any bytes a test chooses (after
// seeing the honest answer), sent at once or dripped slowly.
import http from 'node:http';
import type { Socket } from 'node:net';

export type Misbehaviour = 'proxy' | 'hang' | 'reset' | 'garbage' | 'wrongId' | 'wrongChainId' | 'huge' | 'otherFork' | 'methodNotFound';

/** What `script` answers instead of the node: any status and bytes, optionally dripped. */
export interface ScriptedAnswer {
  status?: number;
  body: string | Buffer;
  /** Send the body this many bytes at a time… */
  dripBytes?: number;
  /** …every this many ms. */
  dripEveryMs?: number;
}

/** Decides a scripted answer for a request, given the honest one (undefined: answer honestly). */
export type AnswerScript = (calls: readonly { id: unknown; method?: string; params?: unknown }[], honest: string) => ScriptedAnswer | undefined;

export interface MisbehavingUpstreamOptions {
  /** The real node requests pass through to. */
  target: string;
  mode?: Misbehaviour;
  /** Which calls misbehave (by method and params); default all. A batch misbehaves when any of its calls does. */
  affects?: (method: string, params: unknown) => boolean;
  /** Body size of `huge` answers. Default 16 MiB. */
  hugeBytes?: number;
}

export interface MisbehavingUpstream {
  readonly url: string;
  mode: Misbehaviour;
  affects: (method: string, params: unknown) => boolean;
  /** When set, consulted for every request after the node answered it (mode still applies first). */
  script: AnswerScript | undefined;
  /** Requests seen, by method (a batch counts each call). */
  readonly seen: Map<string, number>;
  close(): Promise<void>;
}

type Message = { jsonrpc: string; id: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown };

/** Turns a block into a block of "another fork": same number, other hash and parent. */
function forkBlock(result: unknown): unknown {
  if (typeof result !== 'object' || result === null || typeof (result as { hash?: unknown }).hash !== 'string') return result;
  const flip = (h: string) => `0x${[...h.slice(2)].map((c) => (parseInt(c, 16) ^ 0xf).toString(16)).join('')}`;
  const b = result as { hash: string; parentHash: string };
  return { ...b, hash: flip(b.hash), parentHash: flip(b.parentHash) };
}

function sendScripted(res: http.ServerResponse, answer: ScriptedAnswer): void {
  const body = Buffer.from(answer.body);
  res.on('error', () => undefined);
  res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', 'content-length': body.length });
  if (!answer.dripBytes) return void res.end(body);
  const step = answer.dripBytes;
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= body.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(body.subarray(at, (at += step)));
  }, answer.dripEveryMs ?? 50);
}

export async function startMisbehavingUpstream(options: MisbehavingUpstreamOptions): Promise<MisbehavingUpstream> {
  const sockets = new Set<Socket>();
  const seen = new Map<string, number>();
  const state: MisbehavingUpstream = {
    url: '',
    mode: options.mode ?? 'proxy',
    affects: options.affects ?? (() => true),
    script: undefined,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const hugeBytes = options.hugeBytes ?? 16 * 1024 * 1024;

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let request: Message | Message[];
    try {
      request = JSON.parse(text) as Message | Message[];
    } catch {
      res.writeHead(400).end();
      return;
    }
    const calls = Array.isArray(request) ? request : [request];
    for (const c of calls) seen.set(String(c.method), (seen.get(String(c.method)) ?? 0) + 1);
    const mode = calls.some((c) => state.affects(String(c.method), c.params)) ? state.mode : 'proxy';
    if (mode === 'hang') return; // the socket stays open until the client gives up or close()
    if (mode === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    if (mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>502 upstream sad</html>');
      return;
    }
    if (mode === 'huge') {
      const id = JSON.stringify(calls[0]!.id);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"jsonrpc":"2.0","id":${id},"result":"0x`);
      const chunk = 'ab'.repeat(32 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < hugeBytes) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('"}');
      };
      res.on('error', () => undefined);
      more();
      return;
    }
    if (mode === 'methodNotFound' && !Array.isArray(request)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } }));
      return;
    }
    let answer: Message | Message[];
    try {
      const upstream = await fetch(options.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      answer = (await upstream.json()) as Message | Message[];
    } catch {
      res.writeHead(502).end();
      return;
    }
    const scripted = state.script?.(calls, JSON.stringify(answer));
    if (scripted) {
      sendScripted(res, scripted);
      return;
    }
    const answers = Array.isArray(answer) ? answer : [answer];
    const callOf = (id: unknown) => calls.find((c) => c.id === id);
    const methodOf = (id: unknown) => callOf(id)?.method;
    const hit = (id: unknown) => state.affects(String(methodOf(id)), callOf(id)?.params);
    for (const a of answers) {
      if (mode === 'methodNotFound' && hit(a.id)) {
        delete a.result;
        a.error = { code: -32601, message: 'Method not found' };
      }
      if (mode === 'wrongId' && typeof a.id === 'number') a.id = a.id + 1000;
      if (mode === 'wrongChainId' && methodOf(a.id) === 'eth_chainId') a.result = '0x1';
      if (mode === 'otherFork' && hit(a.id) && String(methodOf(a.id)).startsWith('eth_getBlockBy')) a.result = forkBlock(a.result);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  (state as { url: string }).url = `http://127.0.0.1:${port}`;
  return state;
}
