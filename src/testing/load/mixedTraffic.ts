// The load run's traffic: a steady, open-loop mix of JSON-RPC reads and batches, transactions on
// the embedded chain (to an address a webhook watches, so each one is also a delivery), traces of
// recent transactions and blocks, webhook creations (each deleted again) and management reads, at
// a fixed rate. An operation due while `maxInFlight` are still waiting is counted as skipped, so a
// service that cannot hold the rate shows it instead of the rate quietly dropping.
import type { LatencyBook } from './latencyBook.js';

export interface TrafficTarget {
  rpcUrl: string;
  baseUrl: string;
  authToken: string;
  /** URL of the listener new webhooks point at. */
  listenerUrl: string;
  /** Unlocked dev account that sends the transactions. */
  sender: string;
  /** Address the transactions go to (watched by a webhook of the caller's). */
  recipient: string;
  /** The watching webhook, whose events list is read. */
  webhookId: string;
}

export interface MixedTrafficOptions {
  opsPerSec: number;
  maxInFlight: number;
}

export interface MixedTraffic {
  start(): void;
  /** Stops issuing and waits for what is in flight. */
  stop(): Promise<void>;
  /** Hashes of the transactions the service acknowledged. */
  readonly sentHashes: readonly string[];
  /** Operations due while maxInFlight were waiting. */
  skipped(): number;
  issued(): number;
}

class CallFailed extends Error {}

type Op = (t: TrafficTarget, s: TrafficState) => Promise<void>;

interface TrafficState {
  hashes: string[];
  book: LatencyBook;
  n: number;
}

async function timed<T>(book: LatencyBook, name: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  let ok = false;
  try {
    const out = await fn();
    ok = true;
    return out;
  } finally {
    book.record(name, performance.now() - start, ok);
  }
}

async function rpc(t: TrafficTarget, s: TrafficState, method: string, params: unknown[], name = method): Promise<unknown> {
  return timed(s.book, name, async () => {
    const res = await fetch(t.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++s.n, method, params }) });
    const answer = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (res.status !== 200 || answer.error) throw new CallFailed(`${method}: ${res.status} ${answer.error?.message ?? ''}`);
    return answer.result;
  });
}

async function api(t: TrafficTarget, s: TrafficState, method: string, path: string, body?: unknown): Promise<unknown> {
  const name = `${method} /api${path.replace(/\?.*$/, '')}`;
  return timed(s.book, name, async () => {
    const res = await fetch(`${t.baseUrl}/api${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-service-token': t.authToken },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await res.json()) as { data?: unknown };
    if (res.status !== 200) throw new CallFailed(`${name}: ${res.status}`);
    return answer.data;
  });
}

const recent = (s: TrafficState): string | undefined => s.hashes[s.hashes.length - 1 - (s.n % Math.min(s.hashes.length, 20))];
const hex = (n: number) => `0x${n.toString(16)}`;

/** One cycle of the mix, in order; the rate is spread over it evenly. */
const MIX: Op[] = [
  async (t, s) => void (await rpc(t, s, 'eth_blockNumber', [])),
  async (t, s) => void s.hashes.push((await rpc(t, s, 'eth_sendTransaction', [{ from: t.sender, to: t.recipient, value: hex(1000 + s.hashes.length) }])) as string),
  async (t, s) => void (await rpc(t, s, 'eth_getBalance', [t.recipient, 'latest'])),
  async (t, s) => {
    const h = recent(s);
    if (h) await rpc(t, s, 'debug_traceTransaction', [h, { tracer: 'callTracer' }], 'debug_traceTransaction callTracer');
  },
  async (t, s) => void (await rpc(t, s, 'eth_getBlockByNumber', ['latest', true])),
  async (t, s) => void (await rpc(t, s, 'trace_block', ['latest'])),
  async (t, s) => void s.hashes.push((await rpc(t, s, 'eth_sendTransaction', [{ from: t.sender, to: t.recipient, value: hex(1000 + s.hashes.length) }])) as string),
  async (t, s) => {
    const h = recent(s);
    if (h) await rpc(t, s, 'eth_getTransactionReceipt', [h]);
  },
  async (t, s) =>
    void (await timed(s.book, 'batch of 10 reads', async () => {
      const body = Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: i % 2 ? 'eth_getBalance' : 'eth_getTransactionCount', params: [t.recipient, 'latest'] }));
      const res = await fetch(t.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answers = (await res.json()) as { error?: unknown }[];
      if (res.status !== 200 || answers.length !== 10 || answers.some((a) => a.error)) throw new CallFailed('batch');
    })),
  async (t, s) => {
    const h = recent(s);
    if (h) await rpc(t, s, 'debug_traceTransaction', [h, { tracer: 'prestateTracer' }], 'debug_traceTransaction prestateTracer');
  },
  async (t, s) => void (await rpc(t, s, 'eth_call', [{ from: t.sender, to: t.recipient, data: '0x' }, 'latest'])),
  async (t, s) => {
    const address = `0x${(s.n * 2654435761 % 2 ** 32).toString(16).padStart(8, '0').repeat(5)}`;
    const created = (await api(t, s, 'POST', '/create-webhook', { network: 'LOCAL', webhook_type: 'ADDRESS_ACTIVITY', webhook_url: t.listenerUrl, addresses: [address] })) as { id: string };
    await api(t, s, 'DELETE', `/delete-webhook?webhook_id=${created.id}`);
  },
  async (t, s) => void s.hashes.push((await rpc(t, s, 'eth_sendTransaction', [{ from: t.sender, to: t.recipient, value: hex(1000 + s.hashes.length) }])) as string),
  async (t, s) => void (await rpc(t, s, 'eth_estimateGas', [{ from: t.sender, to: t.recipient, value: '0x1' }])),
  async (t, s) => {
    const h = recent(s);
    if (h) await rpc(t, s, 'trace_transaction', [h]);
  },
  async (t, s) => void (await api(t, s, 'GET', `/webhook-events?webhook_id=${t.webhookId}&limit=20`)),
];

export function createMixedTraffic(target: TrafficTarget, book: LatencyBook, options: MixedTrafficOptions): MixedTraffic {
  const state: TrafficState = { hashes: [], book, n: 0 };
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let skipped = 0;
  let issued = 0;
  let next = 0;
  let startedAt = 0;

  function tick(): void {
    // Catch up with the schedule: every operation due by now is issued (or skipped) in order.
    const due = Math.floor(((performance.now() - startedAt) / 1000) * options.opsPerSec);
    while (issued + skipped < due) {
      if (inFlight.size >= options.maxInFlight) {
        skipped++;
        continue;
      }
      issued++;
      const op = MIX[next++ % MIX.length]!;
      const p = op(target, state)
        .catch((error: unknown) => {
          // Recorded as a failure by `timed`; anything else is a bug of the mix itself.
          if (!(error instanceof CallFailed) && !(error instanceof TypeError)) throw error;
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }

  return {
    sentHashes: state.hashes,
    skipped: () => skipped,
    issued: () => issued,
    start() {
      startedAt = performance.now();
      timer = setInterval(tick, Math.max(5, Math.floor(1000 / options.opsPerSec)));
    },
    async stop() {
      clearInterval(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
