// Which calls the finality-aware cache may keep, under which key, and how an answer is checked
// before it enters: it must be about the hash or number asked for and name the block it belongs
// to (from the answer itself, or from a cheap companion lookup). Whether that block is canonical
// or final is the caching backend's question, asked of the chain view.
import type { BackendCall } from '../../backend.js';
import type { Hex } from '../../../rpc/hex.js';
import { cacheKey } from './cacheKey.js';
import { isTraceAnswerShape } from './traceAnswerShape.js';

/** The block an answer belongs to. */
export interface BlockRef {
  number: bigint;
  hash: Hex;
}

/** What a call names: a transaction, a block by hash, or a block by number. */
export type CallSubject = { kind: 'tx'; hash: Hex } | { kind: 'blockHash'; hash: Hex } | { kind: 'blockNumber'; number: bigint };

export interface CacheableCall {
  readonly method: string;
  readonly key: string;
  readonly subject: CallSubject;
  /** A cheap call naming the answer's block, when the answer itself does not (also cacheable). */
  readonly lookup?: BackendCall;
  /**
   * Checks an answer (and the lookup's answer, when there is a lookup) and returns the block it
   * belongs to; undefined when it must not be cached (not found, empty, about something else).
   */
  anchor(result: unknown, lookupResult?: unknown): BlockRef | undefined;
}

const HASH = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;

function asHash(value: unknown): Hex | undefined {
  return typeof value === 'string' && HASH.test(value) ? (value.toLowerCase() as Hex) : undefined;
}

/** A block number as a hex quantity (receipts, blocks) or a JSON number (Parity traces). */
function asNumber(value: unknown): bigint | undefined {
  if (typeof value === 'string' && QUANTITY.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The block of a block-level field pair (`blockHash`, `blockNumber`) of one answer object. */
function blockFields(value: Record<string, unknown>): BlockRef | undefined {
  const hash = asHash(value.blockHash);
  const number = asNumber(value.blockNumber);
  return hash !== undefined && number !== undefined ? { number, hash } : undefined;
}

function matchesSubject(ref: BlockRef, subject: CallSubject): boolean {
  if (subject.kind === 'blockHash') return ref.hash === subject.hash;
  if (subject.kind === 'blockNumber') return ref.number === subject.number;
  return true;
}

/** A transaction object (eth_getTransactionByHash): its hash is the one asked for, and it is mined. */
function txObjectBlock(result: unknown, txHash: Hex): BlockRef | undefined {
  if (!isRecord(result) || asHash(result.hash) !== txHash) return undefined;
  return blockFields(result);
}

/** A receipt: its transactionHash is the one asked for. */
function receiptBlock(result: unknown, txHash: Hex): BlockRef | undefined {
  if (!isRecord(result) || asHash(result.transactionHash) !== txHash) return undefined;
  return blockFields(result);
}

/** A block object: its own hash and number, which must be the ones asked for. */
function blockObject(result: unknown, subject: CallSubject): BlockRef | undefined {
  if (!isRecord(result)) return undefined;
  const hash = asHash(result.hash);
  const number = asNumber(result.number);
  if (hash === undefined || number === undefined) return undefined;
  const ref = { number, hash };
  return matchesSubject(ref, subject) ? ref : undefined;
}

/**
 * A non-empty list of objects that all name the same block (Parity traces, receipts), about the
 * subject asked for; for a transaction subject each entry's `transactionHash` must be it.
 */
function entriesBlock(result: unknown, subject: CallSubject): BlockRef | undefined {
  if (!Array.isArray(result) || result.length === 0) return undefined;
  let ref: BlockRef | undefined;
  for (const entry of result) {
    if (!isRecord(entry)) return undefined;
    const own = blockFields(entry);
    if (!own || (ref && (own.hash !== ref.hash || own.number !== ref.number))) return undefined;
    if (subject.kind === 'tx' && asHash(entry.transactionHash) !== subject.hash) return undefined;
    ref = own;
  }
  return ref && matchesSubject(ref, subject) ? ref : undefined;
}

/**
 * A geth block trace (`[{txHash?, result}]`) checked against the block the lookup answered: one
 * entry per transaction of that block, in its order.
 */
function blockTraceBlock(result: unknown, lookupResult: unknown, subject: CallSubject): BlockRef | undefined {
  const ref = blockObject(lookupResult, subject);
  if (!ref || !Array.isArray(result) || result.length === 0) return undefined;
  const txs = (lookupResult as Record<string, unknown>).transactions;
  if (!Array.isArray(txs) || txs.length !== result.length) return undefined;
  for (let i = 0; i < result.length; i++) {
    const entry: unknown = result[i];
    if (!isRecord(entry) || !('result' in entry) || entry.result === null) return undefined;
    const tx: unknown = txs[i];
    const txHash = asHash(isRecord(tx) ? tx.hash : tx);
    if (entry.txHash !== undefined && asHash(entry.txHash) !== txHash) return undefined;
  }
  return ref;
}

const txLookup = (hash: Hex): BackendCall => ({ method: 'eth_getTransactionByHash', params: [hash] });
const blockByHashLookup = (hash: Hex): BackendCall => ({ method: 'eth_getBlockByHash', params: [hash, false] });
const blockByNumberLookup = (number: bigint): BackendCall => ({ method: 'eth_getBlockByNumber', params: [`0x${number.toString(16)}`, false] });

/**
 * A block param that pins an immutable block: a hash (bare or EIP-1898 `{blockHash}`), or a
 * number at or below the finalized block. Tags (`latest`, `finalized`, …) never are.
 */
function pinnedBlock(param: unknown, finalized: bigint | undefined): CallSubject | undefined {
  const hash = asHash(param);
  if (hash) return { kind: 'blockHash', hash };
  if (isRecord(param)) {
    const keys = Object.keys(param);
    const byHash = asHash(param.blockHash);
    if (byHash && keys.every((k) => k === 'blockHash' || k === 'requireCanonical')) return { kind: 'blockHash', hash: byHash };
    return undefined;
  }
  const number = typeof param === 'string' && QUANTITY.test(param) ? BigInt(param) : undefined;
  if (number !== undefined && finalized !== undefined && number <= finalized) return { kind: 'blockNumber', number };
  return undefined;
}

const subjectText = (subject: CallSubject): string => (subject.kind === 'blockNumber' ? `n${subject.number}` : subject.hash);

/**
 * The cacheable form of a call, or undefined when the cache must pass it through untouched
 * (another method, malformed params, a tag, a number above `finalized`).
 */
export function classifyCall(method: string, params: unknown, finalized: bigint | undefined): CacheableCall | undefined {
  if (!Array.isArray(params) || params.length === 0) return undefined;
  const first: unknown = params[0];
  const rest = params.slice(1);
  const make = (subject: CallSubject, anchor: CacheableCall['anchor'], lookup?: BackendCall, extra: readonly unknown[] = rest): CacheableCall => ({
    method,
    key: cacheKey(method, subjectText(subject), extra),
    subject,
    lookup,
    anchor,
  });
  switch (method) {
    case 'eth_getTransactionByHash':
    case 'eth_getTransactionReceipt':
    case 'trace_transaction':
    case 'debug_traceTransaction': {
      const hash = asHash(first);
      if (!hash) return undefined;
      const subject: CallSubject = { kind: 'tx', hash };
      if (method === 'eth_getTransactionByHash') return make(subject, (r) => txObjectBlock(r, hash));
      if (method === 'eth_getTransactionReceipt') return make(subject, (r) => receiptBlock(r, hash));
      if (method === 'trace_transaction') return make(subject, (r) => entriesBlock(r, subject));
      // A geth trace names no block: the transaction's lookup does. Its own shape is checked, since
      // nothing in it ties it to the transaction.
      return make(subject, (r, l) => (isTraceAnswerShape(r, params[1]) ? txObjectBlock(l, hash) : undefined), txLookup(hash));
    }
    case 'eth_getBlockByHash': {
      const hash = asHash(first);
      return hash ? make({ kind: 'blockHash', hash }, (r) => blockObject(r, { kind: 'blockHash', hash })) : undefined;
    }
    case 'eth_getBlockByNumber': {
      const subject = typeof first === 'string' ? pinnedBlock(first, finalized) : undefined;
      return subject?.kind === 'blockNumber' ? make(subject, (r) => blockObject(r, subject)) : undefined;
    }
    case 'trace_block':
    case 'eth_getBlockReceipts': {
      const subject = pinnedBlock(first, finalized);
      return subject ? make(subject, (r) => entriesBlock(r, subject)) : undefined;
    }
    case 'debug_traceBlockByHash': {
      const hash = asHash(first);
      if (!hash) return undefined;
      const subject: CallSubject = { kind: 'blockHash', hash };
      return make(subject, (r, l) => blockTraceBlock(r, l, subject), blockByHashLookup(hash));
    }
    case 'debug_traceBlockByNumber': {
      const subject = typeof first === 'string' ? pinnedBlock(first, finalized) : undefined;
      if (subject?.kind !== 'blockNumber') return undefined;
      return make(subject, (r, l) => blockTraceBlock(r, l, subject), blockByNumberLookup(subject.number));
    }
    case 'eth_call': {
      // eth_call(callObject, {blockHash}, overrides?): the call object and overrides are the rest.
      if (params.length < 2) return undefined;
      const subject = isRecord(params[1]) ? pinnedBlock(params[1], undefined) : undefined;
      if (subject?.kind !== 'blockHash') return undefined;
      const lookup = blockByHashLookup(subject.hash);
      const anchor = (r: unknown, l: unknown) => (typeof r === 'string' ? blockObject(l, subject) : undefined);
      return make(subject, anchor, lookup, [first, params[1], ...params.slice(2)]);
    }
    default:
      return undefined;
  }
}
