// Finds out what one upstream node really answers, with cheap real calls: chain id, client version,
// head and finalized block, how old a block's state it still serves, and which trace_* and
// debug_trace* methods, geth tracers and Parity trace types it supports. Acting on the table
// (routing, taking a wrong-chain node out) is networkUpstreams.ts's and routedBackend.ts's.
import { RpcError, UpstreamBadAnswerError, UpstreamError } from '../../rpc/errors.js';
import type { Hex } from '../../rpc/hex.js';
import { quantityToHex } from '../../rpc/hex.js';
import type { JsonRpcClient } from './jsonRpcClient.js';

export const PROBED_TRACERS = ['callTracer', 'prestateTracer', 'flatCallTracer', 'structLogger'] as const;
export type ProbedTracer = (typeof PROBED_TRACERS)[number];
export const TRACE_TYPES = ['trace', 'stateDiff', 'vmTrace'] as const;
export type TraceType = (typeof TRACE_TYPES)[number];

/** What one probe found. `undefined` in a table means "not found out" (the router then tries). */
export interface UpstreamCapabilities {
  chainId: bigint;
  clientVersion?: string;
  head: { number: bigint; hash: Hex };
  finalized?: bigint;
  /** Oldest block whose state the node serves (0: archive); undefined when not found out. */
  stateFrom?: bigint;
  /** Probed trace_* and debug_trace* methods: true when the node answers them. */
  methods: Record<string, boolean>;
  /** Geth tracers (debug_traceCall with each; `structLogger` is the default, no tracer). */
  tracers: Partial<Record<ProbedTracer, boolean>>;
  /** Parity trace types (trace_call, else trace_replayBlockTransactions, with each type alone). */
  traceTypes: Partial<Record<TraceType, boolean>>;
  probedAtMs: number;
}

export interface ProbeOptions {
  /** Deadline of each probe call. */
  timeoutMs: number;
  signal?: AbortSignal;
  now?: () => number;
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const ZERO_HASH = `0x${'0'.repeat(64)}`;
/** A plain value-less call to the zero address: every node can run it at any block it has state for. */
const PROBE_CALL = { from: ZERO_ADDRESS, to: ZERO_ADDRESS, data: '0x' };
/** Depths tried from the head, oldest first, to find how far back state is served. */
const STATE_DEPTHS = [1_000_000n, 100_000n, 10_000n, 1_024n, 128n, 16n, 4n];

/** The node's answer says it does not have this (method, tracer or option), not that the call failed. */
export function isUnsupportedAnswer(error: unknown): boolean {
  if (!(error instanceof RpcError) || error instanceof UpstreamError) return false;
  return error.code === -32601 || /\b(unsupported|not supported|unknown tracer)\b/i.test(error.message);
}

/**
 * The node lacks the state or block the call names (a pruned node, one not yet synced that far):
 * another node may have it, and this one is not at fault.
 */
export function isMissingStateAnswer(error: unknown): boolean {
  if (!(error instanceof RpcError) || error instanceof UpstreamError) return false;
  return /missing trie node|state (is )?not available|historical state|pruned|header not found|BlockOutOfRange|unknown block/i.test(error.message);
}

type Verdict = 'yes' | 'no';

interface Block {
  number: bigint;
  hash: Hex;
}

function blockOf(value: unknown): Block | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const b = value as { number?: unknown; hash?: unknown };
  if (typeof b.number !== 'string' || typeof b.hash !== 'string' || !/^0x[0-9a-fA-F]+$/.test(b.number)) return undefined;
  return { number: BigInt(b.number), hash: b.hash.toLowerCase() as Hex };
}

/**
 * Probes one upstream. Rejects with the UpstreamError of a call that got no usable answer
 * (unreachable, timeout, garbage), so a failed probe never passes for "supports nothing".
 */
export async function probeUpstream(client: JsonRpcClient, options: ProbeOptions): Promise<UpstreamCapabilities> {
  const callOptions = { timeoutMs: options.timeoutMs, signal: options.signal };
  const call = (method: string, params: unknown[]) => client.call(method, params, callOptions);
  /** Runs a probe call: a node's error answer is a verdict, a transport failure rejects. */
  const ask = async (method: string, params: unknown[], accept: (result: unknown) => boolean = () => true): Promise<Verdict> => {
    try {
      return accept(await call(method, params)) ? 'yes' : 'no';
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      return isUnsupportedAnswer(error) ? 'no' : 'yes';
    }
  };
  const tolerant = async (method: string, params: unknown[]): Promise<unknown> => {
    try {
      return await call(method, params);
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      return undefined;
    }
  };

  const chainIdHex = await call('eth_chainId', []);
  if (typeof chainIdHex !== 'string' || !/^0x[0-9a-fA-F]+$/.test(chainIdHex)) throw new UpstreamBadAnswerError(client.label, 'eth_chainId is not a quantity');
  const [clientVersion, latest, finalized] = await Promise.all([tolerant('web3_clientVersion', []), call('eth_getBlockByNumber', ['latest', false]), tolerant('eth_getBlockByNumber', ['finalized', false])]);
  const head = blockOf(latest);
  if (!head) throw new UpstreamBadAnswerError(client.label, 'eth_getBlockByNumber("latest") is not a block');
  const h = quantityToHex(head.number);

  const isObject = (r: unknown) => typeof r === 'object' && r !== null && !Array.isArray(r);
  const methodProbes: Array<[string, unknown[]]> = [
    ['trace_transaction', [ZERO_HASH]],
    ['trace_block', [h]],
    ['trace_filter', [{ fromBlock: h, toBlock: h }]],
    ['trace_get', [ZERO_HASH, ['0x0']]],
    ['trace_call', [PROBE_CALL, ['trace'], h]],
    ['trace_callMany', [[[PROBE_CALL, ['trace']]], h]],
    ['trace_replayTransaction', [ZERO_HASH, ['trace']]],
    ['trace_replayBlockTransactions', [h, ['trace']]],
    ['trace_rawTransaction', ['0x', ['trace']]],
    ['debug_traceTransaction', [ZERO_HASH, { tracer: 'callTracer' }]],
    ['debug_traceCall', [PROBE_CALL, h, { tracer: 'callTracer' }]],
    ['debug_traceBlockByNumber', [h, { tracer: 'callTracer' }]],
    ['debug_traceBlockByHash', [head.hash, { tracer: 'callTracer' }]],
  ];
  const verdicts = await Promise.all(methodProbes.map(([m, p]) => ask(m, p)));
  const methods: Record<string, boolean> = {};
  methodProbes.forEach(([m], i) => (methods[m] = verdicts[i] === 'yes'));

  const tracers: UpstreamCapabilities['tracers'] = {};
  if (methods.debug_traceCall) {
    const shapes: Record<ProbedTracer, [unknown, (r: unknown) => boolean]> = {
      callTracer: [{ tracer: 'callTracer' }, (r) => isObject(r) && typeof (r as { type?: unknown }).type === 'string'],
      prestateTracer: [{ tracer: 'prestateTracer' }, isObject],
      flatCallTracer: [{ tracer: 'flatCallTracer' }, Array.isArray],
      structLogger: [{}, (r) => isObject(r) && Array.isArray((r as { structLogs?: unknown }).structLogs)],
    };
    const found = await Promise.all(PROBED_TRACERS.map((t) => ask('debug_traceCall', [PROBE_CALL, h, shapes[t][0]], shapes[t][1])));
    PROBED_TRACERS.forEach((t, i) => (tracers[t] = found[i] === 'yes'));
  }

  const traceTypes: UpstreamCapabilities['traceTypes'] = {};
  const typeMethod = methods.trace_call ? 'trace_call' : methods.trace_replayBlockTransactions ? 'trace_replayBlockTransactions' : undefined;
  if (typeMethod) {
    const found = await Promise.all(
      TRACE_TYPES.map((t) => (typeMethod === 'trace_call' ? ask('trace_call', [PROBE_CALL, [t], h], isObject) : ask('trace_replayBlockTransactions', [h, [t]], Array.isArray))),
    );
    TRACE_TYPES.forEach((t, i) => (traceTypes[t] = found[i] === 'yes'));
  } else {
    for (const t of TRACE_TYPES) traceTypes[t] = false;
  }

  const finalizedBlock = blockOf(finalized);
  return {
    chainId: BigInt(chainIdHex),
    clientVersion: typeof clientVersion === 'string' ? clientVersion.slice(0, 200) : undefined,
    head,
    finalized: finalizedBlock?.number,
    stateFrom: await findStateFrom(call, head.number),
    methods,
    tracers,
    traceTypes,
    probedAtMs: (options.now ?? Date.now)(),
  };
}

/** Oldest block (among a few depths) at which the node still answers a state read. */
async function findStateFrom(call: (method: string, params: unknown[]) => Promise<unknown>, head: bigint): Promise<bigint | undefined> {
  const readable = async (block: bigint) => {
    try {
      return typeof (await call('eth_getBalance', [ZERO_ADDRESS, quantityToHex(block)])) === 'string';
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      return false;
    }
  };
  // Genesis state is kept even by some pruned nodes, so block 1 is the archive test.
  if (head <= 1n || (await readable(1n))) return 0n;
  for (const depth of STATE_DEPTHS) {
    if (depth >= head) continue;
    if (await readable(head - depth)) return head - depth;
  }
  return (await readable(head)) ? head : undefined;
}
