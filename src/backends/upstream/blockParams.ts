// Which parameter of which method names a block, whether the call reads state at that block, which
// methods write, and the pinning of block tags (`latest`, `safe`, `finalized`) to numbers so every
// call of one request sees the same head. Choosing upstreams from these facts is routedBackend.ts's.
import { quantityToHex } from '../../rpc/hex.js';

/** Position of the block parameter, and whether the call reads account state at that block. */
interface BlockParamSpec {
  index: number;
  state: boolean;
}

const BLOCK_PARAM: ReadonlyMap<string, BlockParamSpec> = new Map([
  ['eth_getBalance', { index: 1, state: true }],
  ['eth_getCode', { index: 1, state: true }],
  ['eth_getTransactionCount', { index: 1, state: true }],
  ['eth_getStorageAt', { index: 2, state: true }],
  ['eth_call', { index: 1, state: true }],
  ['eth_estimateGas', { index: 1, state: true }],
  ['eth_createAccessList', { index: 1, state: true }],
  ['eth_getProof', { index: 2, state: true }],
  ['debug_traceCall', { index: 1, state: true }],
  ['trace_call', { index: 2, state: true }],
  ['trace_callMany', { index: 1, state: true }],
  ['eth_getBlockByNumber', { index: 0, state: false }],
  ['eth_getBlockTransactionCountByNumber', { index: 0, state: false }],
  ['eth_getTransactionByBlockNumberAndIndex', { index: 0, state: false }],
  ['eth_getUncleCountByBlockNumber', { index: 0, state: false }],
  ['eth_getUncleByBlockNumberAndIndex', { index: 0, state: false }],
  ['eth_getBlockReceipts', { index: 0, state: false }],
  ['eth_feeHistory', { index: 1, state: false }],
  // Re-executing a block's transactions needs the state of its parent.
  ['debug_traceBlockByNumber', { index: 0, state: true }],
  ['trace_block', { index: 0, state: false }],
  ['trace_replayBlockTransactions', { index: 0, state: true }],
]);

/** Methods whose block range lives in a filter object's `fromBlock`/`toBlock`. */
const FILTER_METHODS = new Set(['eth_getLogs', 'trace_filter']);

const WRITE_METHODS = new Set(['eth_sendRawTransaction', 'eth_sendTransaction', 'eth_sendRawTransactionSync', 'eth_sendBundle', 'eth_sendPrivateTransaction']);

/** Writes: sending one twice could broadcast or sign twice, so they are never retried once sent. */
export function isWriteMethod(method: string): boolean {
  return WRITE_METHODS.has(method) || method.startsWith('personal_') || method.startsWith('eth_sign');
}

export type PinnableTag = 'latest' | 'safe' | 'finalized';

/** The numbers tags resolve to for one request; undefined leaves that tag as it is. */
export type TagPins = Partial<Record<PinnableTag, bigint>>;

/** The block a call names, after pinning: a number, a hash, or an unpinned tag. */
export type BlockRef = { kind: 'number'; number: bigint; state: boolean } | { kind: 'hash'; state: boolean } | { kind: 'tag'; tag: string; state: boolean };

const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

function refOf(value: unknown, state: boolean): BlockRef | undefined {
  if (typeof value === 'string') {
    if (QUANTITY.test(value)) return { kind: 'number', number: BigInt(value), state };
    if (HASH.test(value)) return { kind: 'hash', state };
    return { kind: 'tag', tag: value, state };
  }
  if (typeof value === 'object' && value !== null) {
    const v = value as { blockNumber?: unknown; blockHash?: unknown };
    if (typeof v.blockHash === 'string') return { kind: 'hash', state };
    if (typeof v.blockNumber === 'string') return refOf(v.blockNumber, state);
  }
  return undefined;
}

function pinValue(value: unknown, pins: TagPins): unknown {
  if (value === 'latest' || value === 'safe' || value === 'finalized') {
    const n = pins[value];
    return n === undefined ? value : quantityToHex(n);
  }
  return value;
}

/**
 * The blocks a call names: one for most methods, the range's ends for filters (a `blockHash`
 * filter names a hash). Empty when the call names no block (by-hash methods, writes, net_*).
 */
export function blockRefsOf(method: string, params: unknown): BlockRef[] {
  if (!Array.isArray(params)) return [];
  const spec = BLOCK_PARAM.get(method);
  if (spec) {
    const ref = refOf(params[spec.index], spec.state);
    return ref ? [ref] : [];
  }
  if (FILTER_METHODS.has(method) && typeof params[0] === 'object' && params[0] !== null) {
    const filter = params[0] as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
    if (typeof filter.blockHash === 'string') return [{ kind: 'hash', state: false }];
    return [filter.fromBlock, filter.toBlock].map((v) => refOf(v, false)).filter((r): r is BlockRef => r !== undefined);
  }
  return [];
}

/** Whether the call names a pinnable tag (so the request needs its pins resolved). */
export function namesPinnableTag(method: string, params: unknown): boolean {
  return blockRefsOf(method, params).some((r) => r.kind === 'tag' && (r.tag === 'latest' || r.tag === 'safe' || r.tag === 'finalized'));
}

/**
 * `params` with `latest`/`safe`/`finalized` replaced by the request's pinned numbers (a new array;
 * the caller's is not changed). Other tags (`pending`, `earliest`) and explicit blocks stay.
 */
export function pinBlockTags(method: string, params: unknown, pins: TagPins): unknown {
  if (!Array.isArray(params)) return params;
  const spec = BLOCK_PARAM.get(method);
  if (spec) {
    if (spec.index >= params.length) return params;
    const value = params[spec.index];
    const pinned = pinValue(value, pins);
    if (pinned === value) return params;
    const copy = [...params];
    copy[spec.index] = pinned;
    return copy;
  }
  if (FILTER_METHODS.has(method) && typeof params[0] === 'object' && params[0] !== null && !Array.isArray(params[0])) {
    const filter = params[0] as Record<string, unknown>;
    const fromBlock = pinValue(filter.fromBlock, pins);
    const toBlock = pinValue(filter.toBlock, pins);
    if (fromBlock === filter.fromBlock && toBlock === filter.toBlock) return params;
    const copy = { ...filter };
    if ('fromBlock' in filter) copy.fromBlock = fromBlock;
    if ('toBlock' in filter) copy.toBlock = toBlock;
    return [copy, ...params.slice(1)];
  }
  return params;
}
