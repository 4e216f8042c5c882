// The second tier of the finality-aware cache: traces kept where every gateway reads them (Redis,
// redisSharedCache.ts), behind each process's own LRU. This file owns the tier's interface and the
// entry's text form (the block it belongs to, then the answer's JSON text); which answers enter and
// when a read may be served is the caching backend's decision (cachingBackend.ts).
import type { Hex } from '../../../rpc/hex.js';
import type { BlockRef } from './cacheableCalls.js';

/** One network's view of the shared tier. Neither method throws or waits past the tier's bound. */
export interface SharedCacheTier {
  /** The stored texts of `keys` (L1 keys of this network), undefined where absent or on any failure. */
  get(keys: readonly string[]): Promise<(string | undefined)[]>;
  /** Stores a text for later reads by any gateway; fire and forget (failures are counted, never thrown). */
  put(key: string, text: string): void;
}

/** Methods whose answers go to the shared tier: the traces (a node's most expensive answers). */
export const SHARED_METHODS: ReadonlySet<string> = new Set(['trace_transaction', 'trace_block', 'debug_traceTransaction', 'debug_traceBlockByHash', 'debug_traceBlockByNumber']);

export interface SharedEntry extends BlockRef {
  /** The block was at or below the writer's finalized block when it was stored. */
  final: boolean;
  /** The answer's JSON text. */
  text: string;
}

const VERSION = 'v1';
const HEADER = /^v1\|(\d{1,20})\|(0x[0-9a-f]{64})\|([fc])\|/;

/** `v1|<number>|<hash>|f|c|<json>`: the header is read without parsing the answer. */
export function encodeSharedEntry(entry: SharedEntry): string {
  return `${VERSION}|${entry.number}|${entry.hash}|${entry.final ? 'f' : 'c'}|${entry.text}`;
}

/**
 * The entry of a stored text, or undefined when it is not one (another version, a damaged or
 * truncated value): the answer must parse as JSON, so a cut value is never served.
 */
export function decodeSharedEntry(stored: string): (SharedEntry & { value: unknown }) | undefined {
  const header = HEADER.exec(stored);
  if (!header) return undefined;
  const text = stored.slice(header[0].length);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  return { number: BigInt(header[1]!), hash: header[2] as Hex, final: header[3] === 'f', text, value };
}
