// Coalesces cheap single calls to one node into JSON-RPC batches: calls made in the same turn of
// the event loop (the requests of many clients parsed in one poll phase) leave as one HTTP batch,
// sent at the end of that turn. One round trip and one write then carry many calls, which is most of
// what a proxied call costs. Only short reads join (block number, balances, blocks, receipts,
// eth_call, …): writes always go alone, so a resend can never repeat them. Traces of one
// transaction by hash join batches of their own (a node answers a batch of traces at least as fast
// as the same traces sent side by side, and one write carries them), so they never delay cheap
// calls; block traces, logs and other heavy calls go alone. A batch's answers are checked by the
// wrapped client as usual; a transport failure fails every call of the batch with the same
// retryable error (the router fails each over on its own), a batch whose answer is over the size
// limit is asked again call by call, and a node that refuses batches gets calls one by one from
// then on.
import { RpcError, UpstreamAbortedError, UpstreamAnswerTooLargeError, UpstreamError } from '../../rpc/errors.js';
import type { JsonRpcCall, JsonRpcCallOptions, JsonRpcClient, JsonRpcOutcome } from './jsonRpcClient.js';

/** Methods short enough to share a batch with others. */
const COALESCED = new Set([
  'eth_blockNumber',
  'eth_chainId',
  'net_version',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_blobBaseFee',
  'eth_syncing',
  'eth_getBalance',
  'eth_getTransactionCount',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_call',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
]);

/** Traces of one transaction, batched among themselves (small answers next to a block's). */
const TRACES = new Set(['trace_transaction', 'debug_traceTransaction']);

export interface CoalescingOptions {
  /** Most cheap calls in one batch. Default 32. */
  maxBatch?: number;
  /** Most transaction traces in one batch. Default 8. */
  maxTraceBatch?: number;
}

/** Calls waiting for the end of the turn that share a deadline and a kind. */
interface Queue {
  timeoutMs: number | undefined;
  maxBatch: number;
  waiting: Waiting[];
}

interface Waiting {
  call: JsonRpcCall;
  signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  settled: boolean;
  onAbort?: () => void;
}

/** A JsonRpcClient whose cheap `call`s are sent in batches; `batch` and other calls pass through. */
export function createCoalescingClient(client: JsonRpcClient, options: CoalescingOptions = {}): JsonRpcClient {
  const maxBatch = options.maxBatch ?? 32;
  const maxTraceBatch = options.maxTraceBatch ?? 8;
  let batching = true;
  /** Waiting calls per kind and deadline (calls with different deadlines never share a batch). */
  const queues = new Map<string, Queue>();
  let scheduled = false;

  const settle = (w: Waiting, outcome: JsonRpcOutcome) => {
    if (w.settled) return;
    w.settled = true;
    if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
    if (outcome.ok) w.resolve(outcome.result);
    else w.reject(outcome.error);
  };

  const send = async (group: Waiting[], timeoutMs: number | undefined) => {
    const live = group.filter((w) => !w.settled);
    if (live.length === 0) return;
    if (live.length === 1 || !batching) {
      for (const w of live) {
        client.call(w.call.method, w.call.params, { signal: w.signal, timeoutMs }).then(
          (result) => settle(w, { ok: true, result }),
          (error: unknown) => settle(w, { ok: false, error: error as RpcError }),
        );
      }
      return;
    }
    try {
      // No one caller's signal may cancel the others' batch: each caller's abort settles only its call.
      const outcomes = await client.batch(
        live.map((w) => w.call),
        { timeoutMs },
      );
      live.forEach((w, i) => settle(w, outcomes[i]!));
    } catch (error) {
      if (error instanceof UpstreamAnswerTooLargeError) {
        // The answers together were over the size limit (e.g. eight large traces): each call is
        // asked alone, and only an answer over the limit by itself fails.
        for (const w of live) void send([w], timeoutMs);
        return;
      }
      if (!(error instanceof UpstreamError) && error instanceof RpcError) {
        // The node answered the batch as a whole with an error: it does not take batches.
        batching = false;
        return send(live, timeoutMs);
      }
      for (const w of live) settle(w, { ok: false, error: error as RpcError });
    }
  };

  const flush = () => {
    scheduled = false;
    for (const [key, { timeoutMs, maxBatch: most, waiting }] of queues) {
      queues.delete(key);
      for (let i = 0; i < waiting.length; i += most) void send(waiting.slice(i, i + most), timeoutMs);
    }
  };

  return {
    label: client.label,
    call(method, params, callOptions: JsonRpcCallOptions = {}) {
      const trace = TRACES.has(method);
      if (!batching || !(trace || COALESCED.has(method))) return client.call(method, params, callOptions);
      const { signal, timeoutMs } = callOptions;
      if (signal?.aborted) return Promise.reject(new UpstreamAbortedError(client.label));
      return new Promise((resolve, reject) => {
        const waiting: Waiting = { call: { method, params }, signal, resolve, reject, settled: false };
        if (signal) {
          waiting.onAbort = () => settle(waiting, { ok: false, error: new UpstreamAbortedError(client.label) });
          signal.addEventListener('abort', waiting.onAbort, { once: true });
        }
        const key = `${trace ? 'trace' : 'cheap'}:${timeoutMs}`;
        const queue = queues.get(key);
        if (queue) queue.waiting.push(waiting);
        else queues.set(key, { timeoutMs, maxBatch: trace ? maxTraceBatch : maxBatch, waiting: [waiting] });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
    batch: (calls, callOptions) => client.batch(calls, callOptions),
    close: () => client.close(),
  };
}
